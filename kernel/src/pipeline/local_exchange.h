// LocalExchange: an Exchange with no socket, for HostContext::call. The
// request is a LocalCall (endpoint id, parameters, JSON body); the answer is
// kept in memory, and a streaming route's events go to the call's
// on_event. Pipeline::handleAs runs it through the stages after
// authentication, so an in-process call is admitted, limited and audited
// like the HTTP request it stands for.
#pragma once

#include <optional>
#include <string>

#include "abx/sdk/local_call.h"
#include "pipeline/exchange.h"
#include "routing/route_table.h"

namespace abx::kernel {

/** The request target of @p call on @p route (percent-encoded), or nullopt
 *  when a path parameter of the template is missing. */
std::optional<std::string> localTarget(const Route& route, const sdk::LocalCall& call);

class LocalExchange final : public Exchange {
 public:
  LocalExchange(const sdk::LocalCall& call, std::string method, std::string target);

  std::string_view method() const override { return method_; }
  std::string_view target() const override { return target_; }
  std::vector<std::string_view> headerValues(std::string_view name) const override;
  std::vector<std::pair<std::string, std::string>> headers() const override { return headers_; }
  std::optional<std::int64_t> contentLength() const override;
  bool readBody(std::string& out, std::size_t length) override;
  std::size_t readSome(char* buffer, std::size_t n) override;
  void send(const sdk::Response& response) override;
  void stream(const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer,
              std::shared_ptr<void> hold) override;
  void addResponseHeader(const std::string& name, const std::string& value) override;
  std::string localAddress() const override { return "127.0.0.1"; }

  /** What the pipeline answered (a 500 if it never did). */
  sdk::Response take();

 private:
  const sdk::LocalCall& call_;
  std::string method_;
  std::string target_;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::size_t read_ = 0;
  std::vector<std::pair<std::string, std::string>> extra_headers_;
  std::optional<sdk::Response> answer_;
};

}  // namespace abx::kernel
