// Server: assembles the kernel — services, plugins, policy, pipeline, HTTP —
// runs until SIGTERM/SIGINT (SIGHUP reloads the policy), then drains and
// stops plugins in reverse order. check-config uses boot() alone.
#pragma once

#include <signal.h>

#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/core_endpoints.h"
#include "loader/kernel_services.h"
#include "loader/manifest.h"
#include "loader/plugin_loader.h"
#include "metrics/kernel_metrics.h"
#include "pipeline/audit_log.h"
#include "pipeline/origin_policy.h"
#include "pipeline/pipeline.h"
#include "pipeline/policy_path_guard.h"
#include "policy/authenticator.h"
#include "server/server_config.h"

namespace abx::kernel {

inline constexpr const char* kServerVersion = "0.1.0";

class Server {
 public:
  explicit Server(ServerConfig config);
  ~Server();

  /** Runs until a termination signal. @return the process exit code. */
  int run();

  /**
   * Loads and starts every plugin, compiles the policy and publishes the
   * dispatch. @return the one-line reason on failure.
   */
  std::optional<std::string> boot();
  /** Re-reads the policy; on failure the old one stays. @return the error. */
  std::optional<std::string> reload();

  const Pipeline& pipeline() const { return pipeline_; }
  const std::vector<GroupRecord>& groups() const { return groups_; }
  /** What the core endpoints read (the `openapi` command builds from it). */
  const CoreState& core() const { return core_; }
  void stopPlugins();

 private:
  /** Why the server must not start as configured (exit 2), or nothing. */
  std::optional<std::string> refusalToStart();
  /** Reloads the policy on each SIGHUP until SIGTERM or SIGINT. */
  void serveUntilStopped(const sigset_t& signals);
  std::optional<std::string> loadPlugins();
  /** Creates the state dir (0700) and keeps it from every caller. */
  std::optional<std::string> prepareStateDir();
  /** The audit stream for @p path, opened once. */
  std::FILE* auditFile(const std::string& path);
  /** Compiles the policy from its sources into a new, published dispatch. */
  std::optional<std::string> publishPolicy();
  /** Reads the started plugins' OpenAPI fragments once for their warnings;
   *  documents read them again on demand. */
  void loadOpenApiFragments();
  /** The core fragment and the started plugins' fragments, checked against the routes. */
  std::unique_ptr<OpenApiCatalog> readOpenApiFragments() const;

  ServerConfig config_;
  std::unique_ptr<KernelServices> services_;
  // The kernel's own metrics, registered like a plugin's (errors go to its log).
  std::unique_ptr<PluginLogger> kernel_log_;
  std::unique_ptr<OwnedMetrics> kernel_registry_;
  std::unique_ptr<KernelMetrics> metrics_;
  std::deque<PluginRecord> plugins_;
  std::vector<GroupRecord> groups_;
  std::vector<std::string> env_groups_;
  CoreState core_;
  std::unique_ptr<OnDemandOpenApiCatalog> openapi_;
  Pipeline pipeline_;
  std::unique_ptr<PolicyPathGuard> path_guard_;
  std::shared_ptr<RouteTable> routes_;
  std::uint64_t revision_ = 0;
  // The newest records of every policy revision's log (GET /audit/recent).
  AuditRing audit_ring_;
  // One stream per audit_log path, reused by every reload that names it;
  // open until exit, as a request may still write to it under an old policy.
  std::map<std::string, std::FILE*> audit_files_;
  std::unique_ptr<OriginPolicy> origins_;
  std::FILE* access_file_ = nullptr;  // owned unless it is stderr
  std::unique_ptr<AccessLog> access_log_;
};

}  // namespace abx::kernel
