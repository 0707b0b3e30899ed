// LocalCall: a route served in-process on behalf of a caller a plugin has
// already authenticated (HostContext::call), so a plugin that fronts other
// plugins' routes (the MCP server at /mcp) makes every call pass the same
// admission, policy, limits, handler and audit as the HTTP route, without
// an HTTP hop back to its own server.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"

namespace abx::sdk {

/** One in-process request to an endpoint. Since ABI 2.4. */
struct LocalCall {
  std::string endpoint; /**< the endpoint id ("files_list", "shell") */
  /** The caller, as the plugin's own route saw it (Request::identity). */
  Identity identity;
  /** Values of the route template's `{name}` segments (percent-encoded by the host). */
  ParamMap path_params;
  /** Query parameters in order (percent-encoded by the host). */
  std::vector<std::pair<std::string, std::string>> query;
  /** The JSON body; empty: none. */
  std::string body;
  /** Extra request headers, names lower-case (accept, x-request-id). */
  std::vector<std::pair<std::string, std::string>> headers;
  /** A streaming route's events as they are written; return false to stop
   *  (the route then sees a client that went away). Unset: events are dropped. */
  std::function<bool(std::string_view name, std::string_view data)> on_event;
  /** A streamed body (Response::body_stream) is kept up to this many bytes;
   *  a longer one is answered 502. */
  std::size_t max_response_bytes = 16u << 20;
};

}  // namespace abx::sdk
