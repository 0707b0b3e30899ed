// ClaudeCodeAdapter: the claude-code runtime (alias "claude") — Anthropic's
// Claude Code CLI run headless, one `claude -p` process per turn, its
// stream-json stdout read by the shared jsonl-claude parser.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * buildInvocation(), argv (never a secret; the prompt goes on stdin):
 *   claude -p --output-format stream-json --verbose --include-partial-messages
 *     --permission-mode plan | acceptEdits | bypassPermissions
 *     [--resume <native_session_id>] [--model <model>] [--effort <level>]
 *     [--append-system-prompt <instructions>[\n\n<extra_instructions>]
 *      [--system-prompt-snapshot off  (when there are per-turn instructions)]]
 *     [--max-turns N] [--max-budget-usd X]
 *     [--mcp-config <turn_dir>/mcp.json [--allowedTools mcp__s__t,...]]
 *     <extra_args...>
 * env: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, DISABLE_AUTOUPDATER,
 * DISABLE_TELEMETRY, DISABLE_ERROR_REPORTING = 1; CLAUDE_CODE_MAX_RETRIES=2
 * unless the definition's env sets it (Claude retries a 401 ten times, for
 * minutes, by default); IS_SANDBOX=1 with bypassPermissions when running as
 * root (Claude refuses it as root otherwise); the secret MCP header values.
 * credentialEnv(): ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (a trailing "/v1" is
 * dropped: Claude appends /v1/messages itself).
 */
class ClaudeCodeAdapter final : public sdk::agents::AgentAdapter {
 public:
  static constexpr const char* kName = "claude-code";
  static constexpr const char* kBinary = "claude";
  static constexpr const char* kMcpConfigFile = "mcp.json";
  static constexpr const char* kDefaultMaxRetries = "2";

  /** @p as_root: whether the server (so the CLI) runs as uid 0. */
  explicit ClaudeCodeAdapter(bool as_root);
  /** As the server's own uid says: the CLI runs with it. */
  ClaudeCodeAdapter();

  std::string name() const override { return kName; }
  std::vector<std::string> aliases() const override { return {"claude"}; }
  std::string binary() const override { return kBinary; }
  sdk::agents::AdapterCapabilities capabilities() const override;
  std::vector<std::vector<std::string>> installSteps() const override;
  std::vector<std::string> validate(const sdk::agents::AgentSpec& spec) const override;
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override;
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext& turn) const override;
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override;
  sdk::agents::FailureInfo classifyFailure(int exit_code,
                                           std::string_view stderr_tail) const override;

 private:
  bool as_root_;
};

/** The --permission-mode for @p p. */
std::string_view claudePermissionMode(sdk::agents::Permissions p);

/** ANTHROPIC_BASE_URL for a provider.base_url: no trailing '/' or "/v1". */
std::string anthropicBaseUrl(std::string_view base_url);

/** Claude's --effort level for a Responses reasoning.effort ("" = leave it out). */
std::string claudeEffort(std::string_view reasoning_effort);

}  // namespace abx::plugins::adapters
