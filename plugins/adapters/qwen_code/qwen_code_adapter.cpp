// QwenCodeAdapter: an agent definition + one turn -> a qwen command line.
#include "qwen_code_adapter.h"

#include "mcp_names.h"
#include "qwen_settings_file.h"
#include "qwen_stream_parser.h"

namespace abx::plugins::adapters {

using namespace sdk::agents;

namespace {

// The message qwen 0.24 prints (stderr, exit 1) for a --resume id it does not know.
constexpr std::string_view kUnknownSession = "No saved session found";

std::string joinInstructions(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "\n\n" + b;
}

}  // namespace

std::string_view qwenApprovalMode(Permissions permissions) {
  switch (permissions) {
    case Permissions::read_only:
      return "plan";
    case Permissions::workspace_write:
      return "auto-edit";
    case Permissions::full_access:
      break;
  }
  return "yolo";
}

AdapterCapabilities QwenCodeAdapter::capabilities() const {
  AdapterCapabilities caps;
  caps.resume = true;
  caps.partial_deltas = true;
  caps.mcp = true;
  caps.system_prompt = true;
  caps.base_url = true;
  caps.max_turns = true;
  return caps;
}

std::vector<std::vector<std::string>> QwenCodeAdapter::installSteps() const {
  return {{"npm", "install", "-g", "@qwen-code/qwen-code@0.24.4"}};
}

std::vector<std::string> QwenCodeAdapter::validate(const AgentSpec& spec) const {
  std::vector<std::string> errors;
  const auto& wire = spec.provider.wire_api;
  if (!wire.empty() && wire != "chat" && wire != "responses")
    errors.push_back("provider.wire_api '" + wire +
                     "' is unknown for qwen-code (use 'chat', the default, or 'responses')");
  if (spec.limits.max_budget_usd)
    errors.push_back(
        "limits.max_budget_usd is not supported by qwen-code (it reports no cost); remove it");
  if (spec.limits.max_turns && *spec.limits.max_turns < 1)
    errors.push_back("limits.max_turns must be at least 1");
  if (!spec.model.empty() && spec.model.front() == '-')
    errors.push_back("model '" + spec.model + "' must not start with '-'");
  return errors;
}

sdk::Result<Invocation> QwenCodeAdapter::buildInvocation(const TurnContext& turn) const {
  if (!turn.spec) return sdk::Status::error("qwen-code: no agent definition", "ValueError");
  if (turn.turn_dir.empty())
    return sdk::Status::error("qwen-code: the turn has no private directory", "ValueError");
  const AgentSpec& spec = *turn.spec;

  Invocation inv;
  auto& argv = inv.argv;
  argv = {binary(),
          "--auth-type",
          spec.provider.wire_api == "responses" ? "openai-responses" : "openai",
          "--output-format",
          "stream-json",
          "--include-partial-messages",
          "--approval-mode",
          std::string(qwenApprovalMode(spec.permissions))};
  // Values a user chose use the --flag=value form, so one starting with '-'
  // cannot be read as another flag.
  if (!spec.model.empty()) argv.push_back("--model=" + spec.model);
  if (auto text = joinInstructions(spec.instructions, turn.extra_instructions); !text.empty())
    argv.push_back("--append-system-prompt=" + text);
  if (spec.limits.max_turns)
    argv.push_back("--max-session-turns=" + std::to_string(*spec.limits.max_turns));
  if (turn.native_session_id && !turn.native_session_id->empty())
    argv.push_back("--resume=" + *turn.native_session_id);
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());

  inv.stdin_data = turn.prompt;

  auto servers = spec.mcp_servers;
  servers.insert(servers.end(), turn.extra_mcp_servers.begin(), turn.extra_mcp_servers.end());
  // Names become settings keys and includeTools entries.
  if (auto s = checkMcpNames(servers, "qwen-code"); !s) return s;
  QwenSettingsFile settings = buildQwenSettingsFile(servers);
  inv.files.push_back({kSettingsFile, settings.json, 0600});
  inv.env = {{"QWEN_TELEMETRY_ENABLED", "false"},
             {"QWEN_USAGE_STATISTICS_ENABLED", "false"},
             {"QWEN_CODE_SYSTEM_DEFAULTS_PATH", turn.turn_dir + "/" + kSettingsFile}};
  if (spec.permissions == Permissions::full_access)
    inv.env.emplace_back("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
  inv.env.insert(inv.env.end(), settings.env.begin(), settings.env.end());
  return inv;
}

std::unique_ptr<EventParser> QwenCodeAdapter::newParser(const TurnContext& turn) const {
  return std::make_unique<QwenStreamParser>(turn.native_session_id, turn.session_usage);
}

EnvList QwenCodeAdapter::credentialEnv(const AgentSpec& spec) const {
  EnvList env;
  if (!spec.provider.api_key.empty()) env.emplace_back("OPENAI_API_KEY", spec.provider.api_key);
  if (!spec.provider.base_url.empty()) env.emplace_back("OPENAI_BASE_URL", spec.provider.base_url);
  if (!spec.model.empty()) env.emplace_back("OPENAI_MODEL", spec.model);
  return env;
}

FailureInfo QwenCodeAdapter::classifyFailure(int exit_code, std::string_view stderr_tail) const {
  if (stderr_tail.find(kUnknownSession) != std::string_view::npos)
    return {"invalid_request",
            "qwen no longer knows this session (its ~/.qwen/projects store or the workspace path "
            "changed); start a new session"};
  return classifyCommonFailure(exit_code, stderr_tail);
}

}  // namespace abx::plugins::adapters
