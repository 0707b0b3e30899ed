// ClaudeCodeAdapter: an agent definition + one turn -> a `claude -p` run.
#include "claude_code_adapter.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "claude_mcp_config.h"
#include "claude_stream_parser.h"
#include "mcp_names.h"

namespace abx::plugins::adapters {

using namespace sdk::agents;

namespace {

// Flags this adapter owns: another value for one of them would break the
// parser (output format), the resume handle or the permission mapping.
constexpr std::string_view kOwnedFlags[] = {"-p",
                                            "--print",
                                            "--output-format",
                                            "--input-format",
                                            "--resume",
                                            "-r",
                                            "--continue",
                                            "-c",
                                            "--session-id",
                                            "--permission-mode",
                                            "--bg",
                                            "--background",
                                            "--dangerously-skip-permissions"};

bool isOwnedFlag(std::string_view arg) {
  const auto name = arg.substr(0, arg.find('='));
  return std::find(std::begin(kOwnedFlags), std::end(kOwnedFlags), name) != std::end(kOwnedFlags);
}

std::string number(double value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

bool hasName(const EnvList& env, std::string_view name) {
  return std::any_of(env.begin(), env.end(), [&](const auto& kv) { return kv.first == name; });
}

}  // namespace

std::string_view claudePermissionMode(Permissions p) {
  switch (p) {
    case Permissions::read_only:
      return "plan";
    case Permissions::workspace_write:
      return "acceptEdits";
    case Permissions::full_access:
      break;
  }
  return "bypassPermissions";
}

std::string anthropicBaseUrl(std::string_view base_url) {
  while (base_url.ends_with('/')) base_url.remove_suffix(1);
  if (base_url.ends_with("/v1")) base_url.remove_suffix(3);
  return std::string(base_url);
}

std::string claudeEffort(std::string_view effort) {
  if (effort == "minimal") return "low";
  if (effort == "low" || effort == "medium" || effort == "high" || effort == "xhigh")
    return std::string(effort);
  return {};  // "none", "" or a level Claude does not know
}

ClaudeCodeAdapter::ClaudeCodeAdapter(bool as_root) : as_root_(as_root) {}
// The CLI runs with the server's uid, so the server's uid decides whether
// Claude needs IS_SANDBOX=1 for bypassPermissions.
ClaudeCodeAdapter::ClaudeCodeAdapter() : ClaudeCodeAdapter(::geteuid() == 0) {}

AdapterCapabilities ClaudeCodeAdapter::capabilities() const {
  AdapterCapabilities caps;
  caps.resume = true;
  caps.partial_deltas = true;
  caps.mcp = true;
  caps.system_prompt = true;
  caps.base_url = true;
  caps.max_turns = true;
  caps.budget = true;
  return caps;
}

std::vector<std::vector<std::string>> ClaudeCodeAdapter::installSteps() const {
  return {{"npm", "install", "-g", "@anthropic-ai/claude-code"}};
}

std::vector<std::string> ClaudeCodeAdapter::validate(const AgentSpec& spec) const {
  std::vector<std::string> errors;
  if (!spec.provider.wire_api.empty())
    errors.push_back(
        "provider.wire_api is for runtime codex only; claude-code always speaks the Anthropic "
        "Messages API (remove wire_api)");
  const auto& base_url = spec.provider.base_url;
  if (!base_url.empty() && !base_url.starts_with("http://") && !base_url.starts_with("https://"))
    errors.push_back("provider.base_url must be an http:// or https:// URL (got '" + base_url +
                     "')");
  if (spec.model.starts_with("-"))
    errors.push_back("model must not start with '-' (got '" + spec.model + "')");
  if (spec.limits.max_turns && *spec.limits.max_turns < 1)
    errors.push_back("limits.max_turns must be at least 1 for claude-code");
  if (spec.limits.max_budget_usd && !(*spec.limits.max_budget_usd > 0))
    errors.push_back("limits.max_budget_usd must be greater than 0 for claude-code");
  for (const auto& server : spec.mcp_servers) {
    if (server.url.empty() == server.command.empty())
      errors.push_back("mcp_servers." + server.name + " needs exactly one of url and command");
    else if (!server.command.empty() && !server.headers.empty())
      errors.push_back("mcp_servers." + server.name + ": headers need a url server");
  }
  for (const auto& arg : spec.extra_args)
    if (isOwnedFlag(arg))
      errors.push_back("extra_args must not contain " + arg +
                       ": the claude-code adapter sets it itself (use permissions for the "
                       "permission mode; sessions resume on their own)");
  return errors;
}

sdk::Result<Invocation> ClaudeCodeAdapter::buildInvocation(const TurnContext& turn) const {
  if (!turn.spec) return sdk::Status::error("no agent definition for this turn", "ValueError");
  const AgentSpec& spec = *turn.spec;

  Invocation inv;
  auto& argv = inv.argv;
  argv = {kBinary,
          "-p",
          "--output-format",
          "stream-json",
          "--verbose",  // stream-json with -p refuses to run without it
          "--include-partial-messages",
          "--permission-mode",
          std::string(claudePermissionMode(spec.permissions))};
  if (turn.native_session_id && !turn.native_session_id->empty())
    argv.insert(argv.end(), {"--resume", *turn.native_session_id});
  if (!spec.model.empty()) argv.insert(argv.end(), {"--model", spec.model});
  if (auto effort = claudeEffort(turn.reasoning_effort); !effort.empty())
    argv.insert(argv.end(), {"--effort", effort});

  std::string instructions = spec.instructions;
  if (!turn.extra_instructions.empty())
    instructions += (instructions.empty() ? "" : "\n\n") + turn.extra_instructions;
  if (!instructions.empty()) {
    argv.insert(argv.end(), {"--append-system-prompt", instructions});
    // Claude records the first request's system prompt and resends that
    // record on every resume, whatever --append-system-prompt says then; a
    // turn with its own instructions must render the prompt afresh.
    if (!turn.extra_instructions.empty())
      argv.insert(argv.end(), {"--system-prompt-snapshot", "off"});
  }
  if (spec.limits.max_turns)
    argv.insert(argv.end(), {"--max-turns", std::to_string(*spec.limits.max_turns)});
  if (spec.limits.max_budget_usd)
    argv.insert(argv.end(), {"--max-budget-usd", number(*spec.limits.max_budget_usd)});

  std::vector<McpServerSpec> servers = spec.mcp_servers;
  servers.insert(servers.end(), turn.extra_mcp_servers.begin(), turn.extra_mcp_servers.end());
  if (!servers.empty()) {
    // Names are joined into the comma-separated --allowedTools list.
    if (auto s = checkMcpNames(servers, "claude-code"); !s) return s;
    auto mcp = claudeMcpConfig(servers);
    inv.files.push_back({kMcpConfigFile, std::move(mcp.json), 0600});
    argv.insert(argv.end(), {"--mcp-config", turn.turn_dir + "/" + kMcpConfigFile});
    if (!mcp.tools.empty()) {
      std::string list;
      for (const auto& tool : mcp.tools) list += (list.empty() ? "" : ",") + tool;
      argv.insert(argv.end(), {"--allowedTools", list});
    }
    inv.env.insert(inv.env.end(), mcp.env.begin(), mcp.env.end());
  }
  argv.insert(argv.end(), spec.extra_args.begin(), spec.extra_args.end());

  // Nothing but the model endpoint: no telemetry, error reports, update
  // checks or other side traffic.
  inv.env.insert(inv.env.end(), {{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
                                 {"DISABLE_AUTOUPDATER", "1"},
                                 {"DISABLE_TELEMETRY", "1"},
                                 {"DISABLE_ERROR_REPORTING", "1"}});
  // Invocation env is applied last, so a definition's own value must be left
  // alone here rather than overwritten.
  if (!hasName(spec.env, "CLAUDE_CODE_MAX_RETRIES") &&
      !hasName(spec.secrets, "CLAUDE_CODE_MAX_RETRIES"))
    inv.env.emplace_back("CLAUDE_CODE_MAX_RETRIES", kDefaultMaxRetries);
  if (as_root_ && spec.permissions == Permissions::full_access)
    inv.env.emplace_back("IS_SANDBOX", "1");

  inv.stdin_data = turn.prompt;
  return inv;
}

std::unique_ptr<EventParser> ClaudeCodeAdapter::newParser(const TurnContext&) const {
  return std::make_unique<ClaudeStreamParser>();
}

EnvList ClaudeCodeAdapter::credentialEnv(const AgentSpec& spec) const {
  EnvList env;
  if (!spec.provider.base_url.empty())
    env.emplace_back("ANTHROPIC_BASE_URL", anthropicBaseUrl(spec.provider.base_url));
  if (!spec.provider.api_key.empty()) env.emplace_back("ANTHROPIC_API_KEY", spec.provider.api_key);
  return env;
}

FailureInfo ClaudeCodeAdapter::classifyFailure(int exit_code, std::string_view stderr_tail) const {
  constexpr std::string_view kNoConversation = "No conversation found with session ID";
  constexpr std::string_view kRootRefused = "cannot be used with root/sudo privileges";
  auto lineWith = [&](std::string_view needle) {
    auto pos = stderr_tail.find(needle);
    auto start = stderr_tail.rfind('\n', pos);
    start = start == std::string_view::npos ? 0 : start + 1;
    return std::string(stderr_tail.substr(start, stderr_tail.find('\n', pos) - start));
  };
  // Checked first: the session id in this text may contain "401" or "403".
  if (stderr_tail.find(kNoConversation) != std::string_view::npos)
    return {"invalid_request",
            lineWith(kNoConversation) +
                " (claude keeps its sessions under $HOME/.claude; start a new session)"};
  if (stderr_tail.find(kRootRefused) != std::string_view::npos)
    return {"sandbox_error", lineWith(kRootRefused)};
  return classifyCommonFailure(exit_code, stderr_tail);
}

}  // namespace abx::plugins::adapters
