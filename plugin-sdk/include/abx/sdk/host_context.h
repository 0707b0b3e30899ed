// HostContext: the only thing the kernel passes to a plugin. Each plugin
// gets its own (its logger is tagged with its id). Plugins never implement
// it, so trailing virtuals may be added in a minor version.
#pragma once

#include "abx/sdk/admission.h"
#include "abx/sdk/child_environment.h"
#include "abx/sdk/commands.h"
#include "abx/sdk/http.h"
#include "abx/sdk/local_call.h"
#include "abx/sdk/logger.h"
#include "abx/sdk/path_guard.h"
#include "abx/sdk/redactor.h"
#include "abx/sdk/routes.h"
#include "abx/sdk/services.h"
#include "abx/sdk/settings.h"

namespace abx::sdk {

class Metrics;  // metrics.h

/** LIFETIME: outlives the plugin instance. THREAD: see each part. */
class ABX_SDK_API HostContext {
 public:
  virtual Logger& log() = 0;
  /** Valid during Plugin::start() only. */
  virtual RouteRegistry& routes() = 0;
  virtual CommandRegistry& commands() = 0;
  virtual ServiceRegistry& services() = 0;
  virtual const Settings& settings() const = 0;
  virtual const PathGuard& paths() const = 0;
  virtual Redactor& redactor() = 0;
  virtual const HostInfo& info() const = 0;
  /** The environment children start from (see child_environment.h). */
  virtual ChildEnvironment& environment() = 0;

  /**
   * Authenticates a request that did not come through the HTTP pipeline (a
   * WebSocket handshake on a plugin's own port) exactly as the pipeline
   * would: X-Access-Token or Authorization: Bearer against the identities in
   * force. @p headers: lower-case names. @return the caller, or a Status of
   * type AuthError (message "unauthorized" or "ambiguous credentials").
   */
  virtual Result<Identity> authenticate(
      const std::vector<std::pair<std::string, std::string>>& headers) const = 0;
  /**
   * The effective policy rule of @p endpoint now (a reload changes it), or
   * nullopt for an endpoint the server does not know. For endpoints served
   * outside the pipeline (pty_connect), so they obey the same rules.
   */
  virtual std::optional<EndpointPolicy> endpointPolicy(std::string_view endpoint) const = 0;

  /**
   * Since 1.3. The whole admission of a request served outside the HTTP
   * pipeline (a WebSocket handshake on a plugin's own port), exactly as the
   * pipeline admits an HTTP request to its endpoint: Host and Origin, then
   * the caller (the token headers, or the identity the plugin established),
   * then enabled, scopes, rate and concurrency; the decision is audited.
   * Keep Admission::lease for the life of the connection.
   */
  virtual Admission admit(const AdmissionRequest& request) = 0;
  /**
   * Since 1.3. Marks @p dir (absolute) as the server's own: the PathGuard
   * refuses it and everything below it for every endpoint, whatever the
   * policy says. During Plugin::start() only.
   */
  virtual Status privateDirectory(std::string_view dir) = 0;
  /**
   * Since 1.3. The value of environment variable @p name, taken as a secret:
   * wiped from the server's own environment (so /proc/<server>/environ no
   * longer shows it), never passed to a child through environment(), and
   * redacted from log lines. Later calls return the same value.
   */
  virtual std::optional<std::string> takeSecretEnv(std::string_view name) = 0;
  /**
   * Since 2.2. The registry GET /metrics exports (include abx/sdk/metrics.h
   * to use it). Callback gauges the plugin registers are dropped when it
   * stops; its counters, gauges and histograms stay.
   */
  virtual Metrics& metrics() = 0;
  /**
   * Since 2.4. Serves @p call as the pipeline serves an HTTP request to its
   * endpoint after authentication: admission (enabled, scopes, rate,
   * concurrency), the request's checks and body limit, the handler, the
   * audit record and the request metrics, all for LocalCall::identity. No
   * socket is involved. @return the answer (a refusal is the same 403/404/
   * 429 body the HTTP route sends); a streaming route's events go to
   * LocalCall::on_event and the return is its final answer (200, empty
   * body, when it streamed).
   */
  virtual Response call(const LocalCall& call) = 0;
  /**
   * Since 2.4. The OpenAPI document GET /openapi.json serves @p caller (its
   * `servers` entry is "/"): exactly the operations enabled and allowed for
   * it, with the schemas of the plugins' fragments. "" before the server
   * serves (check-config, the openapi command).
   */
  virtual std::string openApiFor(const Identity& caller) const = 0;

 protected:
  ~HostContext();
};

}  // namespace abx::sdk
