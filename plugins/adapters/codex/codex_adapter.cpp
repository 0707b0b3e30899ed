// CodexAdapter: an agent definition + one turn -> a `codex exec` Invocation.
#include "codex_adapter.h"

#include "codex_jsonl_parser.h"
#include "codex_mcp_config.h"
#include "toml_text.h"

namespace abx::plugins::adapters {

using namespace sdk::agents;

namespace {

void config(std::vector<std::string>& argv, const std::string& key, const std::string& value) {
  argv.push_back("-c");
  argv.push_back(key + "=" + value);
}

std::string sandboxMode(Permissions p) {
  return p == Permissions::read_only ? "read-only" : "workspace-write";
}

std::string instructionsFor(const TurnContext& turn) {
  const std::string& standing = turn.spec->instructions;
  const std::string& extra = turn.extra_instructions;
  if (standing.empty()) return extra;
  if (extra.empty()) return standing;
  return standing + "\n\n" + extra;
}

}  // namespace

AdapterCapabilities CodexAdapter::capabilities() const {
  AdapterCapabilities caps;
  caps.resume = true;
  caps.partial_deltas = false;  // codex exec --json prints every item once, complete
  caps.mcp = true;
  caps.system_prompt = true;
  caps.base_url = true;
  return caps;
}

std::vector<std::vector<std::string>> CodexAdapter::installSteps() const {
  // The version the transcripts and the realcli suite verified.
  return {{"npm", "install", "-g", "@openai/codex@0.169.0"}};
}

std::vector<std::string> CodexAdapter::validate(const AgentSpec& spec) const {
  std::vector<std::string> errors;
  const auto& wire = spec.provider.wire_api;
  if (wire == "chat")
    errors.push_back(
        "provider.wire_api 'chat' is not supported by codex (0.169 refuses it: "
        "\"wire_api = \\\"chat\\\" is no longer supported\"); use 'responses'");
  else if (!wire.empty() && wire != "responses")
    errors.push_back("provider.wire_api must be 'responses' for codex (got '" + wire + "')");
  // codex exec has no turn switch: a limit it would silently ignore is refused.
  if (spec.limits.max_turns)
    errors.push_back(
        "limits.max_turns is not supported by codex (it has no turn limit); remove it");
  if (!wire.empty() && spec.provider.base_url.empty())
    errors.push_back("provider.wire_api applies only together with provider.base_url");
  for (const auto& server : spec.mcp_servers)
    if (!server.command.empty() && !server.headers.empty())
      errors.push_back("mcp_servers." + server.name +
                       ".headers: codex sends headers only to url servers");
  return errors;
}

sdk::Result<Invocation> CodexAdapter::buildInvocation(const TurnContext& turn) const {
  if (!turn.spec)
    return sdk::Status::error("codex: the turn has no agent definition", "ValueError");
  const AgentSpec& spec = *turn.spec;
  const bool resumed = turn.native_session_id && !turn.native_session_id->empty();

  std::vector<McpServerSpec> servers = spec.mcp_servers;
  servers.insert(servers.end(), turn.extra_mcp_servers.begin(), turn.extra_mcp_servers.end());
  auto mcp = codexMcpConfig(servers);
  if (!mcp) return mcp.status();

  Invocation inv;
  auto& argv = inv.argv;
  argv = {kBinary, "exec"};
  if (resumed) argv.push_back("resume");
  argv.insert(argv.end(), {"--json", "--skip-git-repo-check"});

  if (spec.permissions == Permissions::full_access) {
    argv.push_back("--dangerously-bypass-approvals-and-sandbox");
  } else if (resumed) {
    config(argv, "sandbox_mode", toml::string(sandboxMode(spec.permissions)));
  } else {
    argv.insert(argv.end(), {"--sandbox", sandboxMode(spec.permissions)});
  }

  std::vector<std::string> hidden{"ABX_CODEX_*"};
  for (const auto& [name, value] : credentialEnv(spec))
    if (!name.starts_with("ABX_CODEX_")) hidden.push_back(name);
  config(argv, "shell_environment_policy.exclude", toml::stringArray(hidden));

  config(argv, "analytics.enabled", "false");
  config(argv, "feedback.enabled", "false");
  config(argv, "otel.exporter", toml::string("none"));
  config(argv, "otel.trace_exporter", toml::string("none"));
  config(argv, "otel.metrics_exporter", toml::string("none"));
  config(argv, "check_for_update_on_startup", "false");
  argv.insert(argv.end(), {"--disable", "plugins"});

  // -c rather than -m: a model name can never be read as a flag.
  if (!spec.model.empty()) config(argv, "model", toml::string(spec.model));
  if (!spec.provider.base_url.empty()) {
    const std::string p = std::string("model_providers.") + kProviderId;
    config(argv, "model_provider", toml::string(kProviderId));
    config(argv, p + ".name", toml::string(kProviderId));
    config(argv, p + ".base_url", toml::string(spec.provider.base_url));
    config(argv, p + ".wire_api",
           toml::string(spec.provider.wire_api.empty() ? "responses" : spec.provider.wire_api));
    if (!spec.provider.api_key.empty()) config(argv, p + ".env_key", toml::string(kProviderKeyEnv));
  }
  if (auto text = instructionsFor(turn); !text.empty())
    config(argv, "developer_instructions", toml::string(text));
  if (!turn.reasoning_effort.empty())
    config(argv, "model_reasoning_effort", toml::string(turn.reasoning_effort));
  argv.insert(argv.end(), mcp->args.begin(), mcp->args.end());

  // Options only from here on: codex reads the trailing positionals itself.
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());
  if (resumed) argv.push_back(*turn.native_session_id);
  argv.push_back("-");  // the prompt comes on stdin

  inv.stdin_data = turn.prompt;
  inv.env = std::move(mcp->env);
  return inv;
}

std::unique_ptr<EventParser> CodexAdapter::newParser(const TurnContext& turn) const {
  // A first turn starts a new codex thread: nothing earlier is in its totals.
  const bool resumed = turn.native_session_id && !turn.native_session_id->empty();
  return std::make_unique<CodexJsonlParser>(resumed ? turn.session_usage : TokenUsage{});
}

EnvList CodexAdapter::credentialEnv(const AgentSpec& spec) const {
  const auto& key = spec.provider.api_key;
  if (key.empty()) return {};
  if (!spec.provider.base_url.empty()) return {{kProviderKeyEnv, key}};
  return {{"OPENAI_API_KEY", key}, {"CODEX_API_KEY", key}};
}

FailureInfo CodexAdapter::classifyFailure(int exit_code, std::string_view stderr_tail) const {
  return classifyCodexFailure(exit_code, stderr_tail);
}

}  // namespace abx::plugins::adapters
