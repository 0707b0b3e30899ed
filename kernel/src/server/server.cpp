#include "server/server.h"

#include <signal.h>

#include <cstdio>
#include <filesystem>

#include "abx/sdk/version.h"
#include "audit/audit_log.h"
#include "auth/authenticator.h"
#include "http/http_server.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {

Server::Server(ServerConfig config) : config_(std::move(config)) {
  sdk::HostInfo info;
  info.server_version = kServerVersion;
  info.host = config_.host;
  info.http_port = config_.port;
  info.pty_port = config_.pty_port;
  info.base_dir = config_.base_dir;
  info.state_dir = config_.state_dir;
  services_ = std::make_unique<KernelServices>(std::move(info));
  core_.server_version = kServerVersion;
  core_.plugins = &plugins_;
  core_.groups = &groups_;
  core_.base_dir = services_->paths.baseDir();
}

Server::~Server() {
  // Reverse manifest order; libraries stay mapped (RTLD_NODELETE).
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) PluginLoader::stop(*it);
}

BootResult Server::loadPlugins(RouteTable& routes) {
  BootResult result;
  if (config_.manifest.empty()) {
    if (config_.adapter_modules) {
      result.ok = false;
      result.fatal = "ABX_AGENTS_ADAPTER_MODULES is set but no plugin manifest was found";
    } else {
      core_.warnings.push_back("no plugin manifest found: serving the core group only");
      services_->log.write(sdk::LogLevel::warn, "kernel", core_.warnings.back());
    }
    return result;
  }
  auto manifest = loadManifest(config_.manifest, config_.adapter_modules);
  if (!manifest) {
    result.ok = false;
    result.fatal = manifest.status().message();
    return result;
  }
  std::vector<std::string> ids;
  for (auto& entry : manifest->entries) {
    PluginRecord& record = plugins_.emplace_back();
    record.entry = entry;
    record.path = resolvePluginFile(entry, config_.plugin_dir);
    if (!entry.enabled) {
      record.state = "disabled";
      continue;
    }
    auto error = PluginLoader::probe(record, ids);
    if (!error) {
      for (const auto& w : record.warnings)
        services_->log.write(sdk::LogLevel::warn, "loader", record.path + ": " + w);
      error = PluginLoader::start(record, *services_, routes, groups_);
    }
    if (error) {
      record.error = error;
      record.state = "failed";
      if (entry.required) {
        result.ok = false;
        result.fatal = error->line();
        return result;
      }
      services_->log.write(sdk::LogLevel::warn, "loader",
                           "optional plugin '" + entry.name + "' not loaded: " + error->line());
      continue;
    }
    ids.push_back(record.id);
  }
  return result;
}

namespace {

// SIGTERM/SIGINT/SIGHUP are blocked in every thread and taken by sigwait()
// on the main thread, so no handler runs on a worker mid-request.
sigset_t controlSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

int Server::run() {
  sigset_t signals = controlSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  if (!config_.token && !isLoopbackHost(config_.host) && !config_.insecure_no_auth) {
    std::fprintf(stderr,
                 "agent-sandbox-server: refusing to bind %s without a token: set "
                 "ABX_SERVER_TOKEN, or pass --insecure-no-auth to serve unauthenticated\n",
                 config_.host.c_str());
    return 2;
  }
  if (config_.token) services_->redactor.addSecret(*config_.token);

  Authenticator auth(config_.token);
  AuditLog audit(AuditMode::deny, stderr);
  Pipeline pipeline(auth, audit, config_.max_request_bytes);
  core_.pipeline = &pipeline;
  groups_.push_back(coreGroup());

  // Core-only dispatch first, so /health and /ready answer while plugins load.
  auto boot = std::make_unique<Dispatch>();
  addCoreRoutes(boot->routes, core_);
  boot->admission =
      std::make_unique<DefaultAdmission>(boot->routes, groups_, std::vector<std::string>{});
  pipeline.publish(boot.get());
  dispatches_.push_back(std::move(boot));

  SseHub hub;
  HttpServer http(pipeline, hub, config_.threads);
  int port = 0;
  try {
    port = http.listen(config_.host, config_.port);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agent-sandbox-server: cannot listen on %s:%d: %s\n", config_.host.c_str(),
                 config_.port, e.what());
    return 2;
  }
  services_->info.http_port = port;

  auto full = std::make_unique<Dispatch>();
  addCoreRoutes(full->routes, core_);
  auto booted = loadPlugins(full->routes);
  if (!booted.ok) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", booted.fatal.c_str());
    http.drain(std::chrono::milliseconds(500));
    return 2;
  }
  std::vector<std::string> enabled;
  if (config_.enabled_groups) {
    auto parsed = DefaultAdmission::parseEnabledGroups(*config_.enabled_groups, groups_);
    if (!parsed) {
      std::fprintf(stderr, "agent-sandbox-server: %s\n", parsed.status().message().c_str());
      http.drain(std::chrono::milliseconds(500));
      return 2;
    }
    enabled = *parsed;
  }
  full->admission = std::make_unique<DefaultAdmission>(full->routes, groups_, enabled);
  services_->commands.freeze();
  pipeline.publish(full.get());
  dispatches_.push_back(std::move(full));
  core_.readiness = Readiness::ready;

  std::printf("listening on %s:%d\n", config_.host.c_str(), port);
  std::fflush(stdout);
  services_->log.write(sdk::LogLevel::info, "kernel",
                       "serving on " + config_.host + ":" + std::to_string(port) + " with " +
                           std::to_string(plugins_.size()) + " plugin(s); auth " +
                           (config_.token ? "on" : "off"));

  while (true) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig == SIGHUP) {
      services_->log.write(sdk::LogLevel::info, "kernel",
                           "SIGHUP: nothing to reload (no policy file in force)");
      continue;
    }
    break;
  }
  core_.readiness = Readiness::draining;
  services_->log.write(sdk::LogLevel::info, "kernel", "draining");
  services_->events.close();
  http.drain(std::chrono::seconds(10));
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) PluginLoader::stop(*it);
  return 0;
}

}  // namespace abx::kernel
