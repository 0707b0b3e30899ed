// Request ids: each request carries one, taken from the caller's
// X-Request-Id when it is a sane token, else made here; it is echoed in the
// response, written to the audit record, and added to every log line the
// request's own thread writes while it is handled (RequestIdScope).
#pragma once

#include <string>
#include <string_view>

namespace abx::kernel {

/** @p incoming when it is 1-128 characters of [A-Za-z0-9._~:/+=-], else a new id. */
std::string requestIdFor(std::string_view incoming);

/** The id of the request this thread is handling, "" when none. */
std::string_view currentRequestId();

/** Marks this thread as handling request @p id until the scope ends. */
class RequestIdScope {
 public:
  explicit RequestIdScope(const std::string& id);
  ~RequestIdScope();
  RequestIdScope(const RequestIdScope&) = delete;
  RequestIdScope& operator=(const RequestIdScope&) = delete;

 private:
  const std::string* previous_;
};

}  // namespace abx::kernel
