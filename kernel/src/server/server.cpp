#include "server/server.h"

#include <malloc.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "abx/sdk/subprocess.h"
#include "abx/sdk/version.h"
#include "http/http_server.h"
#include "http/listener.h"
#include "openapi/openapi_document.h"
#include "openapi/openapi_on_demand.h"
#include "policy/policy_engine.h"
#include "server/orphan_reaper.h"
#include "server/policy_sources.h"

namespace abx::kernel {

Server::Server(ServerConfig config)
    : config_(std::move(config)), pipeline_(config_.max_request_bytes) {
  sdk::HostInfo info;
  info.server_version = kServerVersion;
  info.host = config_.host;
  info.http_port = config_.port;
  info.pty_port = config_.pty_port;
  info.base_dir = config_.base_dir;
  info.state_dir = config_.state_dir;
  info.checking = config_.checking;
  services_ = std::make_unique<KernelServices>(std::move(info));
  services_->log.configure(config_.log_level, config_.log_format);
  kernel_log_ = std::make_unique<PluginLogger>(services_->log, "kernel");
  kernel_registry_ = std::make_unique<OwnedMetrics>(services_->metrics, "core", *kernel_log_);
  metrics_ = std::make_unique<KernelMetrics>(*kernel_registry_, kServerVersion);
  pipeline_.setMetrics(metrics_.get());
  path_guard_ = std::make_unique<PolicyPathGuard>(pipeline_);
  services_->paths = path_guard_.get();
  services_->pipeline = &pipeline_;
  core_.server_version = kServerVersion;
  core_.plugins = &plugins_;
  core_.groups = &groups_;
  core_.pipeline = &pipeline_;
  core_.audit = &audit_ring_;
  core_.metrics = &services_->metrics;
  origins_ =
      std::make_unique<OriginPolicy>(config_.host, config_.allowed_hosts, config_.cors_origins);
  pipeline_.setOriginPolicy(origins_.get());
}

Server::~Server() {
  stopPlugins();
  pipeline_.publish(nullptr);  // the last dispatch before the audit files it writes to
  for (auto& [path, f] : audit_files_) std::fclose(f);
  if (access_file_ && access_file_ != stderr) std::fclose(access_file_);
}

void Server::stopPlugins() {
  // Reverse manifest order, every plugin stopped before any is destroyed: the
  // agents' turn workers, joined by its stop(), use the adapters loaded after
  // it. Libraries stay mapped (RTLD_NODELETE).
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) {
    PluginLoader::stop(*it);
    metrics_->plugin_up.labels({it->entry.name}).set(0);
  }
  for (auto it = plugins_.rbegin(); it != plugins_.rend(); ++it) PluginLoader::destroy(*it);
}

std::optional<std::string> Server::loadPlugins() {
  if (config_.manifest.empty()) {
    if (config_.adapter_modules)
      return std::string("ABX_AGENTS_ADAPTER_MODULES is set but no plugin manifest was found");
    core_.warnings.push_back("no plugin manifest found: serving the core group only");
    services_->log.write(sdk::LogLevel::warn, "kernel", core_.warnings.back());
    return std::nullopt;
  }
  auto manifest = loadManifest(config_.manifest, config_.adapter_modules);
  if (!manifest) return manifest.status().message();
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
      error = PluginLoader::start(record, *services_, *routes_, groups_);
    }
    if (error) {
      record.error = error;
      record.state = "failed";
      if (entry.required) return error->line();
      services_->log.write(sdk::LogLevel::warn, "loader",
                           "optional plugin '" + entry.name + "' not loaded: " + error->line());
      continue;
    }
    ids.push_back(record.id);
  }
  return std::nullopt;
}

std::unique_ptr<OpenApiCatalog> Server::readOpenApiFragments() const {
  auto catalog = std::make_unique<OpenApiCatalog>();
  catalog->addText("core", coreOpenApiFragment(), "the core fragment");
  for (const auto& plugin : plugins_)
    if (plugin.state == "started") catalog->addFile(plugin.id, plugin.path);
  catalog->check(*routes_);
  return catalog;
}

void Server::loadOpenApiFragments() {
  const auto read_once = readOpenApiFragments();
  for (const auto& w : read_once->warnings()) {
    core_.warnings.push_back(w);
    services_->log.write(sdk::LogLevel::warn, "loader", w);
  }
  openapi_ = std::make_unique<OnDemandOpenApiCatalog>([this] { return readOpenApiFragments(); });
  core_.openapi = openapi_.get();
  services_->openapi = [this](const sdk::Identity& caller) {
    return openApiFor(core_, caller, serverUrlFor(""));
  };
}

std::optional<std::string> Server::publishPolicy() {
  auto sources = readPolicySources(config_);
  if (!sources) return sources.status().message();
  PolicyInputs in;
  in.routes = routes_.get();
  in.groups = groups_;
  in.code = services_->code_toggles;
  in.preset = std::move(sources->preset);
  in.policy = std::move(sources->policy);
  in.env_groups = env_groups_;
  in.base_dir = config_.base_dir;
  in.legacy_token = config_.token;
  in.private_dirs = services_->private_dirs;
  in.strict = config_.strict;
  auto compiled = compilePolicy(in, ++revision_);
  if (!compiled) return compiled.status().message();
  const CompiledPolicy& policy = **compiled;

  std::FILE* sink = stderr;
  if (policy.audit_log && *policy.audit_log != "stderr") {
    sink = auditFile(*policy.audit_log);
    if (!sink) return "audit_log: cannot open " + *policy.audit_log;
  }

  auto dispatch = std::make_shared<Dispatch>();
  dispatch->routes = routes_;
  dispatch->admission = std::make_unique<PolicyAdmission>(*routes_, *compiled);
  dispatch->auth = std::make_unique<Authenticator>(policy.identities);
  dispatch->audit = std::make_unique<AuditLog>(sink, &audit_ring_);
  // The server's own secrets never reach a child process (taken secrets
  // were protected when a plugin took them).
  services_->environment.protect(policy.secret_env_names);
  for (const auto& w : policy.warnings) services_->log.write(sdk::LogLevel::warn, "policy", w);

  // The previous dispatch goes once the last request holding it ends.
  pipeline_.publish(std::move(dispatch));
  for (auto& plugin : plugins_)
    if (plugin.instance && plugin.state == "started") plugin.instance->policyApplied();
  return std::nullopt;
}

std::FILE* Server::auditFile(const std::string& path) {
  if (auto it = audit_files_.find(path); it != audit_files_.end()) return it->second;
  std::FILE* file = AuditLog::openFile(path);
  if (file) audit_files_.emplace(path, file);
  return file;
}

std::optional<std::string> Server::prepareStateDir() {
  if (config_.state_dir.empty()) return std::nullopt;
  std::error_code ec;
  std::filesystem::create_directories(config_.state_dir, ec);
  if (ec) return "state dir " + config_.state_dir + ": " + ec.message();
  // Private to the server's user. With a child user it may be traversed
  // (not listed): plugins put what a child must read in subdirectories of
  // their own, every other subdirectory is 0700.
  auto mode = std::filesystem::perms::owner_all;
  if (sdk::Subprocess::childUser())
    mode |= std::filesystem::perms::group_exec | std::filesystem::perms::others_exec;
  std::filesystem::permissions(config_.state_dir, mode, std::filesystem::perm_options::replace, ec);
  auto real = std::filesystem::weakly_canonical(config_.state_dir, ec);
  services_->private_dirs.push_back(ec ? config_.state_dir : real.string());
  return std::nullopt;
}

std::optional<std::string> Server::boot() {
  if (auto error = prepareStateDir()) return error;
  if (!config_.access_log.empty()) {
    access_file_ = config_.access_log == "-" ? stderr : AuditLog::openFile(config_.access_log);
    if (!access_file_)
      return "--access-log: cannot open " + config_.access_log + ": " + std::strerror(errno);
    access_log_ = std::make_unique<AccessLog>(access_file_, config_.log_format);
    pipeline_.setAccessLog(access_log_.get());
  }
  routes_ = std::make_shared<RouteTable>();
  groups_.push_back(coreGroup());
  addCoreRoutes(*routes_, core_);
  // Plugins may copy the child environment while they start (the agents
  // keep theirs), before the policy is compiled: its token variables leave
  // the environment first. A source that cannot be read fails below.
  if (auto sources = readPolicySources(config_))
    services_->environment.protect(tokenEnvNames(*sources));
  if (auto error = loadPlugins()) return error;
  loadOpenApiFragments();
  for (const auto& p : plugins_)
    metrics_->plugin_up.labels({p.entry.name}).set(p.state == "started" ? 1 : 0);
  if (config_.enabled_groups) {
    auto parsed = DefaultAdmission::parseEnabledGroups(*config_.enabled_groups, groups_);
    if (!parsed) return parsed.status().message();
    env_groups_ = *parsed;
  }
  services_->commands.freeze();
  auto refused = publishPolicy();
  // What start-up parsed and let go (manifests, fragments, policy sources)
  // leaves free pages between live blocks: give them back before serving.
  ::malloc_trim(0);
  return refused;
}

std::optional<std::string> Server::reload() { return publishPolicy(); }

namespace {

// SIGTERM/SIGINT/SIGHUP are blocked in every thread and taken by sigwait()
// on the main thread, so no handler runs on a worker mid-request. So is
// SIGCHLD: the main thread reaps the orphans the server adopts.
sigset_t controlSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGCHLD);
  return set;
}

}  // namespace

std::optional<std::string> Server::refusalToStart() {
  if (config_.child_user) {
    if (auto status = sdk::Subprocess::setChildUser(*config_.child_user); !status)
      return "--child-user: " + status.message();
  }
  if (!config_.token && !isLoopbackHost(config_.host) && !config_.insecure_no_auth)
    return "refusing to bind " + config_.host +
           " without a token: set ABX_SERVER_TOKEN, or pass --insecure-no-auth to serve "
           "unauthenticated";
  return std::nullopt;
}

void Server::serveUntilStopped(const sigset_t& signals) {
  while (waitReapingOrphans(signals) == SIGHUP) {
    const auto error = reload();
    metrics_->policy_reloads.labels({error ? "error" : "ok"}).inc();
    if (error)
      services_->log.write(sdk::LogLevel::error, "policy",
                           "reload rejected, the previous policy stays in force: " + *error);
    else
      services_->log.write(sdk::LogLevel::info, "policy",
                           "reloaded (revision " + std::to_string(revision_) + ")");
  }
}

int Server::run() {
  sigset_t signals = controlSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  const bool adopting = adoptOrphans();
  const rlim_t open_files = raiseOpenFileLimit();

  if (auto refusal = refusalToStart()) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", refusal->c_str());
    return 2;
  }

  // While plugins load, only the auth-exempt probes answer: no route that a
  // policy could protect is reachable before the policy is in force.
  auto probes = std::make_shared<RouteTable>();
  {
    RouteTable all;
    addCoreRoutes(all, core_);
    for (const auto& r : all.routes())
      if (!r->spec.auth_required) probes->add(r->spec, "core");
  }
  auto boot_dispatch = std::make_shared<Dispatch>();
  boot_dispatch->routes = probes;
  boot_dispatch->admission = std::make_unique<DefaultAdmission>(
      *probes, std::vector<GroupRecord>{coreGroup()}, std::vector<std::string>{});
  boot_dispatch->auth = std::make_unique<Authenticator>(std::nullopt);
  boot_dispatch->audit = std::make_unique<AuditLog>(stderr);
  pipeline_.publish(std::move(boot_dispatch));

  SseHub hub;
  hub.setGauge(&metrics_->streams_open.labels({"worker"}));
  ConnectionLimits limits;
  limits.max_connections = config_.max_connections;
  limits.max_per_peer = config_.max_connections_per_peer;
  limits.head_timeout = std::chrono::seconds(config_.head_timeout_s);
  limits.idle_timeout = std::chrono::seconds(config_.idle_timeout_s);
  limits.io_timeout = std::chrono::seconds(config_.io_timeout_s);
  HttpServer http(pipeline_, hub, config_.threads, limits, metrics_.get());
  int port = 0;
  try {
    port = http.listen(config_.host, config_.port);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "agent-sandbox-server: cannot listen on %s:%d: %s\n", config_.host.c_str(),
                 config_.port, e.what());
    return 2;
  }
  services_->info.http_port = port;
  origins_->setPorts(port, config_.pty_port);

  if (auto error = boot()) {
    std::fprintf(stderr, "agent-sandbox-server: %s\n", error->c_str());
    http.drain(std::chrono::milliseconds(500));
    return 2;
  }
  core_.readiness = Readiness::ready;

  std::printf("listening on %s:%d\n", config_.host.c_str(), port);
  std::fflush(stdout);
  services_->log.write(sdk::LogLevel::info, "kernel",
                       "serving on " + config_.host + ":" + std::to_string(port) + " with " +
                           std::to_string(plugins_.size()) + " plugin(s); auth " +
                           (pipeline_.current()->auth->enabled() ? "on" : "off"));

  if (!adopting)
    services_->log.write(sdk::LogLevel::warn, "kernel",
                         "cannot become a child subreaper: orphans of commands go to init");
  if (open_files != RLIM_INFINITY && open_files < config_.max_connections)
    services_->log.write(
        sdk::LogLevel::warn, "kernel",
        "the open-file limit (" + std::to_string(open_files) + ") is below max_connections (" +
            std::to_string(config_.max_connections) +
            "): connections beyond it are answered 503 (raise the hard limit: ulimit -Hn)");

  serveUntilStopped(signals);
  core_.readiness = Readiness::draining;
  services_->log.write(sdk::LogLevel::info, "kernel", "draining");
  http.drain(std::chrono::seconds(config_.drain_timeout_s));
  stopPlugins();
  // What plugins did not end (a request's command past the drain timeout)
  // would hold its worker, and the exit, until it finished by itself.
  if (const std::size_t left = endChildrenLeft())
    services_->log.write(sdk::LogLevel::warn, "kernel",
                         "killed " + std::to_string(left) + " command(s) still running");
  return 0;
}

}  // namespace abx::kernel
