// OriginPolicy: who may talk to the server from a web browser. A page on
// any site can make the browser send requests to 127.0.0.1 — simple POSTs
// need no CORS preflight, and through DNS rebinding a page can even read the
// answers under its own name. So the server answers only Host values that
// name it (421 otherwise) and refuses requests whose Origin is neither its
// own nor one an operator allowed (403), on the HTTP port and on every
// WebSocket handshake. Clients that are not browsers send no Origin and a
// Host naming the server, and are not affected.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/api_error.h"

namespace abx::kernel {

class OriginPolicy {
 public:
  /**
   * @param bind_host     the address the server listens on
   * @param allowed_hosts extra names (case-insensitive; "*" turns the Host check off)
   * @param cors_origins  cross-origin callers, "scheme://host[:port]"
   */
  OriginPolicy(std::string bind_host, std::vector<std::string> allowed_hosts,
               std::vector<std::string> cors_origins);

  /** The server's own ports, once bound (origins on them are its own). */
  void setPorts(int http_port, int pty_port);

  enum class OriginKind {
    none,    /**< no Origin header: not a browser request */
    same,    /**< the server's own origin */
    cross,   /**< an allowed cross-origin caller: answer with CORS headers */
    foreign, /**< refuse */
  };

  /**
   * The 421 for a Host header that does not name the server, or nullopt.
   * @p local_address gives the connection's local IP (asked only when the
   * host is an IP literal that no fixed rule accepts).
   */
  std::optional<ApiError> checkHost(std::optional<std::string_view> host,
                                    const std::function<std::string()>& local_address) const;
  OriginKind classify(std::string_view origin,
                      const std::function<std::string()>& local_address) const;
  /** The 403 for a foreign Origin. */
  static ApiError originError(std::string_view origin);

  /** "HTTP://Example.COM:80/" -> "http://example.com"; nullopt when not an origin. */
  static std::optional<std::string> normaliseOrigin(std::string_view origin);
  /** The host part of a Host header value, lower-cased, without port, brackets or final dot. */
  static std::string hostName(std::string_view host_header);

 private:
  bool namesServer(const std::string& host,
                   const std::function<std::string()>& local_address) const;

  std::vector<std::string> names_;  // lower-case, fixed and operator-allowed
  bool any_host_ = false;
  std::vector<std::string> cors_origins_;  // normalised
  std::atomic<int> http_port_{-1};
  std::atomic<int> pty_port_{-1};
};

}  // namespace abx::kernel
