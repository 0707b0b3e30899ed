// Admission: the kernel's verdict on a request that a plugin serves outside
// the HTTP pipeline (HostContext::admit), so a WebSocket handshake on the
// plugin's own port obeys the same Host/Origin, token, policy and audit
// rules as an HTTP request.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"

namespace abx::sdk {

/** A request served outside the HTTP pipeline, as HostContext::admit sees it. */
struct AdmissionRequest {
  std::string endpoint; /**< the endpoint id it counts as ("pty_connect") */
  std::string method = "GET";
  std::string path; /**< for the audit record */
  /** Every request header, names lower-case. */
  std::vector<std::pair<std::string, std::string>> headers;
  /** The IP address the connection arrived on (a Host naming it is the server's own). */
  std::string local_address;
  /** The caller when the plugin established it itself (a ticket); else the token headers decide. */
  std::optional<Identity> identity;
};

struct Admission {
  bool allowed = false;
  /** A refusal's HTTP status (400, 401, 403, 404, 421, 429). */
  int status = 401;
  /** A refusal's JSON body, the shape every non-/v1 route answers with. */
  std::string body;
  /** A refusal's extra headers (Retry-After). */
  std::vector<std::pair<std::string, std::string>> headers;
  /** The caller, when allowed. */
  Identity identity;
  /** Holds the endpoint's max_concurrency slot: keep it while the connection lives. */
  std::shared_ptr<void> lease;
};

}  // namespace abx::sdk
