#include "runtimes_route.h"

#include <unistd.h>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/route_table.h"
#include "abx/sdk/subprocess.h"
#include "definition/sdk_agent_body.h"
#include "json_fields.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kCacheFor{60};
constexpr std::chrono::seconds kHealthTimeout{10};

using Health = RuntimeHealth;

// The first executable called @p binary on the PATH of @p env.
std::string findOnPath(const std::string& binary, const std::vector<std::string>& env) {
  if (binary.empty()) return {};
  if (binary.find('/') != std::string::npos)
    return ::access(binary.c_str(), X_OK) == 0 ? binary : "";
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& entry : env)
    if (entry.starts_with("PATH=")) path = entry.substr(5);
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find(':', start);
    auto dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!dir.empty()) {
      auto candidate = dir + "/" + binary;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

Health check(const sdk::agents::AgentAdapter& adapter, const std::vector<std::string>& env) {
  Health health;
  health.at = Clock::now();
  health.path = findOnPath(adapter.binary(), env);
  auto argv = adapter.healthArgv();
  if (health.path.empty() || argv.empty()) return health;
  sdk::SpawnOptions options;
  options.argv = argv;
  options.env = env;
  // Not the server's working directory: a CLI must not pick up project
  // settings (.qwen/, .codex/, ...) a caller planted there.
  options.cwd = "/";
  options.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = kHealthTimeout;
  limits.max_output_bytes = 4096;
  auto run = sdk::Subprocess::run(options, limits);
  if (run && run->exit_code == 0) {
    auto text = run->out.empty() ? run->err : run->out;
    health.version = text.substr(0, text.find('\n'));
  }
  return health;
}

void writeCapabilities(sdk::JsonWriter& w, const sdk::agents::AdapterCapabilities& c) {
  w.beginObject()
      .member("resume", c.resume)
      .member("partial_deltas", c.partial_deltas)
      .member("mcp", c.mcp)
      .member("system_prompt", c.system_prompt)
      .member("base_url", c.base_url)
      .member("max_turns", c.max_turns)
      .member("budget", c.budget)
      .endObject();
}

sdk::Response listRuntimes(const RuntimesContext& ctx, const sdk::Request&) {
  sdk::JsonWriter w;
  w.beginObject().member("object", "list").key("data").beginArray();
  const auto env = ctx.env ? ctx.env() : std::vector<std::string>{};
  for (const auto& [name, adapter] : ctx.services->all<sdk::agents::AgentAdapter>()) {
    Health health;
    {
      std::lock_guard lock(ctx.health_mutex);
      auto it = ctx.health.find(name);
      if (it != ctx.health.end() && Clock::now() - it->second.at < kCacheFor)
        health = it->second;
      else
        health = ctx.health[name] = check(*adapter, env);
    }
    const auto caps = adapter->capabilities();
    // `command` needs no binary of its own: it runs what a definition names.
    const bool installed = adapter->binary().empty() || !health.path.empty();
    w.beginObject().member("name", adapter->name()).key("aliases").beginArray();
    for (const auto& alias : adapter->aliases()) w.value(alias);
    w.endArray()
        .member("object", "agent.runtime")
        .member("implemented", true)
        .member("installed", installed)
        .member("default", adapter->name() == kDefaultRuntime)
        .key("binary");
    writeTextOrNull(w, adapter->binary());
    w.key("path");
    writeTextOrNull(w, health.path);
    w.key("version");
    writeTextOrNull(w, health.version);
    w.member("experimental", caps.experimental).key("capabilities");
    writeCapabilities(w, caps);
    w.endObject();
  }
  w.endArray().endObject();
  return sdk::Response::json(w.take());
}

}  // namespace

sdk::Status addRuntimesRoute(sdk::RouteRegistry& registry,
                             std::shared_ptr<const RuntimesContext> context) {
  return sdk::addRoutes(registry, "agents", std::move(context),
                        {{"GET",
                          "/v1/agents/runtimes",
                          "agents_runtimes",
                          "Registered agent runtimes, installed or not",
                          {"agents:run"},
                          &listRuntimes}});
}

}  // namespace abx::plugins::agents
