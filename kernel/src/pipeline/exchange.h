// Exchange: one HTTP request/response as the pipeline sees it. The HTTP
// server adapts its own types to this, and unit tests use a fake.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"

namespace abx::kernel {

class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual std::string_view method() const = 0;
  /** The request target as received: path and query. */
  virtual std::string_view target() const = 0;
  /** Every value of a header (case-insensitive name), in order. */
  virtual std::vector<std::string_view> headerValues(std::string_view name) const = 0;
  /** All headers, names lower-cased, in order. */
  virtual std::vector<std::pair<std::string, std::string>> headers() const = 0;
  /** Content-Length: nullopt when absent, -1 when malformed. */
  virtual std::optional<std::int64_t> contentLength() const = 0;
  /** Reads exactly @p length body bytes; false on a short read. */
  virtual bool readBody(std::string& out, std::size_t length) = 0;
  /** Reads up to @p n body bytes (never past Content-Length); 0 at the end. */
  virtual std::size_t readSome(char* buffer, std::size_t n) = 0;
  /** Writes the whole response (headers and body in one send). */
  virtual void send(const sdk::Response& response) = 0;
  /**
   * Runs a streaming handler with an SSE writer. A Response it returns is
   * sent as a plain reply if no event was written. @p hold lives as long as
   * the stream, also after the handler detached it to the event loop (the
   * request's concurrency slot).
   */
  virtual void stream(const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer,
                      std::shared_ptr<void> hold = {}) = 0;
  /** Adds a header to whatever response this exchange sends (CORS). */
  virtual void addResponseHeader(const std::string& name, const std::string& value) = 0;
  /** The IP address the connection arrived on ("" when unknown). */
  virtual std::string localAddress() const = 0;
  /** The client's address (the access log); "" when unknown. */
  virtual std::string peerAddress() const { return {}; }
};

}  // namespace abx::kernel
