// Settings come through the host (the manifest, or the ABX_AGENTS_* variables
// the spec names, mapped by the kernel); they are read once at start.
#include "agents_plugin.h"

#include <chrono>
#include <filesystem>
#include <set>
#include <string_view>
#include <vector>

#include "abx/sdk/metrics.h"
#include "agents_settings.h"
extern char** environ;

#include "definition/agents_config_file.h"
#include "definition/env_expansion.h"
#include "runtime/agent_child_env.h"
#include "secret_redaction.h"
#include "secrets/secret_bag.h"
#include "wire/models_routes.h"
#include "wire/wire_route.h"

namespace abx::plugins::agents {
namespace {

/**
 * The variables the definitions' ${VAR}s took a secret from (a provider
 * key, a secret env value) leave the server's environment: no shell or
 * process a caller starts may read them, nor /proc/<server>/environ show
 * them. The definitions keep their own copy for their CLIs.
 */
void takeSecretsFromEnvironment(sdk::HostContext& host, const std::set<std::string>& secrets) {
  std::vector<std::string> names;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq != std::string_view::npos && eq > 0 && secrets.count(std::string(entry.substr(eq + 1))))
      names.emplace_back(entry.substr(0, eq));
  }
  for (const auto& name : names) host.takeSecretEnv(name);
}

// Turn durations: a scripted agent answers in under a second, a real one in
// seconds to tens of minutes.
std::vector<double> turnBounds() { return {0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}; }

/** What the runtime and the streams hold now, computed at each scrape. */
void addLoadGauges(sdk::Metrics& metrics, const AgentRuntime& runtime,
                   const SessionStreams& streams) {
  metrics.callbackGauge("abx_agent_turns_running", "Agent turns running now.",
                        [&runtime] { return static_cast<double>(runtime.load().running); });
  metrics.callbackGauge("abx_agent_turns_queued",
                        "Agent turns waiting for a worker or for their session's running turn.",
                        [&runtime] { return static_cast<double>(runtime.load().queued); });
  metrics.callbackGauge("abx_agent_sessions", "Agent sessions the runtime keeps now.",
                        [&runtime] { return static_cast<double>(runtime.load().sessions); });
  metrics.callbackGauge("abx_agent_session_subscribers",
                        "Clients following a session's event stream now.",
                        [&streams] { return static_cast<double>(streams.subscribers()); });
}

/** Where transcripts, sessions.json and agents_state.json live. */
std::string stateDir(sdk::HostContext& host) {
  auto dir = host.settings().get("state_dir");
  return dir && !dir->empty() ? *dir : host.info().state_dir + "/agents";
}

}  // namespace

sdk::Status AgentsPlugin::start(sdk::HostContext& host) {
  host_ = &host;
  if (auto s = host.routes().declareGroup(
          {"agents", true,
           "Hosted coding agents: /v1/responses, /v1/models and the Agents sessions wire"});
      !s)
    return s;
  if (auto s = buildCatalog(host); !s) return s;
  if (auto s = buildState(host); !s) return s;
  if (auto s = buildRuntime(host); !s) return s;
  return addWireRoutes(host);
}

sdk::Status AgentsPlugin::buildCatalog(sdk::HostContext& host) {
  const sdk::Settings& settings = host.settings();
  // allow_command false turns off `runtime: command` (its adapter plugin
  // then provides nothing) and, here, every definition's extra_args.
  const bool allow_extra_args =
      switchSetting(settings, "allow_command", {"0", "false", "no", "off"}, false);
  // Definitions may reference vault credentials; the catalog resolves them
  // at every turn start.
  vaults_ = std::make_unique<VaultStore>();
  VaultStore* vaults = vaults_.get();
  catalog_ = std::make_unique<AgentCatalog>(
      host.services(), allow_extra_args,
      [vaults](const std::string& vault,
               const std::string& credential) -> std::optional<CredentialValue> {
        auto c = vaults->credential(vault, credential);
        if (!c) return std::nullopt;
        return CredentialValue{c->type, c->secret};
      });
  // Locked: only the definitions of ABX_AGENTS_CONFIG run, as configured;
  // the catalog and both wires hold to it.
  catalog_->lockToDefinitions(
      switchSetting(settings, "lock_definitions", {"1", "true", "yes", "on"}, true));
  auto path = settings.get("config");
  if (!path || path->empty()) return sdk::Status::ok();
  auto loaded = loadAgentsConfigFile(*path, environmentLookup(host.environment()));
  if (!loaded.ok()) return sdk::Status::error(loaded.errorText(), "ValueError");
  std::set<std::string> secrets;
  for (const auto& spec : loaded.agents) {
    definition_names_.push_back(spec.name);
    // The host's redactor guards every log line of the server.
    const auto bag = SecretBag::of(spec);
    for (const auto& secret : bag.values()) host.redactor().addSecret(secret);
    secrets.insert(bag.values().begin(), bag.values().end());
  }
  takeSecretsFromEnvironment(host, secrets);
  catalog_->setDefinitions(std::move(loaded.agents), std::move(loaded.credential_refs),
                           loaded.git_depths);
  return sdk::Status::ok();
}

sdk::Status AgentsPlugin::buildState(sdk::HostContext& host) {
  // A bad key stops the start (check-config included): running on would
  // lose every secret at the next restart without saying so.
  auto sealer = stateSealer(host);
  if (!sealer) return sealer.status();
  if (host.info().checking) return sdk::Status::ok();
  state_ = std::make_unique<AgentsStateSync>(AgentsStateFile(stateDir(host), *sealer), *catalog_,
                                             *vaults_, host.log());
  state_->restore(host.redactor(), unixNow());
  auto* state = state_.get();
  catalog_->onChange([state] { state->save(); });
  vaults_->onChange([state] { state->save(); });
  return sdk::Status::ok();
}

sdk::Status AgentsPlugin::buildRuntime(sdk::HostContext& host) {
  const sdk::Settings& settings = host.settings();
  RuntimeOptions options;
  options.max_concurrent_turns = positiveSetting(settings, "max_concurrent_turns", 4);
  options.max_sessions = positiveSetting(settings, "max_sessions", 200);
  options.session_ttl_s =
      static_cast<std::int64_t>(positiveSetting(settings, "session_ttl_s", 86400));
  options.retention_interval = retentionInterval(options.session_ttl_s);
  options.state_dir = stateDir(host);
  options.log = &host.log();
  // Transcripts and sessions.json are no caller's business through the file
  // API, wherever an operator put them.
  if (auto s = host.privateDirectory(std::filesystem::absolute(options.state_dir).string()); !s)
    return s;
  if (auto names = settings.list("passthrough_env")) options.passthrough_env = *names;
  // Agent CLIs start from the server's environment as it was at start-up,
  // never from what POST /env set since: whoever may set variables must not
  // pick an agent's proxy, CA bundle, locale or PATH.
  startup_env_ = host.environment().snapshot();
  options.base_env = [env = startup_env_] { return env; };
  options.env_protected = [environment = &host.environment()](std::string_view name) {
    return environment->isProtected(name);
  };
  options.redaction_for = [](const sdk::agents::AgentSpec& spec,
                             const std::vector<std::string>& extra) {
    return redactionFor(spec, extra);
  };
  // The events a session's stream keeps for replays (Last-Event-ID).
  streams_ = std::make_unique<SessionStreams>(positiveSetting(settings, "event_ring", 20000));
  overrides_ = std::make_unique<SessionOverridesStore>();
  keys_ = std::make_unique<SessionKeys>();
  options.listener = [streams = streams_.get(), overrides = overrides_.get(), keys = keys_.get()](
                         const std::string& session_id, const RuntimeEvent& event) {
    streams->onRuntimeEvent(session_id, event);
    // A deleted or evicted session leaves nothing behind in the wire's maps.
    if (event.type == "session.ended") {
      overrides->forget(session_id);
      keys->forget(session_id);
    }
  };
  sdk::Metrics& metrics = host.metrics();
  options.turns_finished = &metrics.counter(
      "abx_agent_turns_finished_total",
      "Agent turns a worker ran, at their end, by runtime and outcome (completed, failed, "
      "cancelled).",
      {"runtime", "outcome"});
  options.turn_seconds = &metrics.histogram("abx_agent_turn_duration_seconds",
                                            "Time a worker spent on an agent turn, by runtime.",
                                            turnBounds(), {"runtime"});
  runtime_ = std::make_unique<AgentRuntime>(
      std::move(options), [catalog = catalog_.get()](const std::string& name, std::string& why) {
        return catalog->resolve(name, why);
      });
  if (auto s = runtime_->restore(); !s)
    host.log().warn("agents: previous sessions not restored: " + s.message());
  addLoadGauges(metrics, *runtime_, *streams_);
  return sdk::Status::ok();
}

sdk::Status AgentsPlugin::addWireRoutes(sdk::HostContext& host) {
  store_ = std::make_unique<ResponseStore>();
  context_ = std::make_shared<ResponsesContext>();
  context_->runtime = runtime_.get();
  context_->catalog = catalog_.get();
  context_->store = store_.get();
  context_->started_at = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  if (auto s = addResponsesRoutes(host.routes(), context_); !s) return s;
  if (auto s = addModelsRoutes(host.routes(), context_); !s) return s;
  runtimes_context_ = std::make_shared<RuntimesContext>();
  runtimes_context_->services = &host.services();
  runtimes_context_->env = [env = startup_env_] {
    AgentEnvParts parts;
    parts.base = env;
    return buildAgentEnv(parts);
  };
  if (auto s = addRuntimesRoute(host.routes(), runtimes_context_); !s) return s;
  vaults_context_ = std::make_shared<VaultsContext>();
  vaults_context_->store = vaults_.get();
  vaults_context_->host_redactor = &host.redactor();
  if (auto s = addVaultsRoutes(host.routes(), vaults_context_); !s) return s;
  sessions_context_ = std::make_shared<SessionsContext>();
  sessions_context_->runtime = runtime_.get();
  sessions_context_->catalog = catalog_.get();
  sessions_context_->streams = streams_.get();
  sessions_context_->keys = keys_.get();
  sessions_context_->vaults = vaults_.get();
  sessions_context_->overrides = overrides_.get();
  if (auto s = addSessionsRoutes(host.routes(), sessions_context_); !s) return s;
  // After the literal /v1/agents/sessions and /v1/agents/runtimes routes,
  // which /v1/agents/{id} would otherwise shadow.
  agents_context_ = std::make_shared<AgentsRoutesContext>();
  agents_context_->catalog = catalog_.get();
  agents_context_->vaults = vaults_.get();
  agents_context_->host_redactor = &host.redactor();
  agents_context_->log = &host.log();
  agents_context_->locked = catalog_->locked();
  if (auto s = addUnsupportedAgentsRoutes(host.routes()); !s) return s;
  return addAgentsRoutes(host.routes(), agents_context_);
}

void AgentsPlugin::policyApplied() noexcept {
  if (warned_ || !host_) return;
  warned_ = true;
  for (const auto& name : definition_names_) {
    std::string why;
    if (!catalog_->resolve(name, why)) host_->log().warn("agents: agent '" + name + "': " + why);
  }
}

void AgentsPlugin::stop() noexcept {
  if (runtime_) runtime_->shutdown();
}

std::unique_ptr<sdk::Plugin> makeAgentsPlugin(sdk::HostContext&) {
  return std::make_unique<AgentsPlugin>();
}

}  // namespace abx::plugins::agents
