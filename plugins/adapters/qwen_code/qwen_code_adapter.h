// QwenCodeAdapter: the `qwen-code` runtime (alias `qwen`), Qwen Code 0.24.x
// driven headless: `qwen --auth-type openai --output-format stream-json
// --include-partial-messages --approval-mode <mode> ...` with the prompt on
// stdin, against an OpenAI-compatible provider given through OPENAI_* env.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * buildInvocation():
 *  - argv: qwen --auth-type openai|openai-responses (provider.wire_api) --output-format
 *    stream-json --include-partial-messages --approval-mode plan|auto-edit|yolo
 *    (read_only|workspace_write|full_access) [--model=M]
 *    [--append-system-prompt=<instructions>\n\n<per-turn instructions>]
 *    [--max-session-turns=N] [--resume=<session_id>] then spec.extra_args. Never a
 *    secret; user values in the --flag=value form (a value cannot pose as a flag).
 *  - stdin: the prompt.
 *  - env: QWEN_TELEMETRY_ENABLED=false, QWEN_USAGE_STATISTICS_ENABLED=false,
 *    QWEN_CODE_SYSTEM_DEFAULTS_PATH=<turn_dir>/qwen-settings.json,
 *    QWEN_CODE_SUPPRESS_YOLO_WARNING=1 (yolo), and the MCP header values.
 *  - files: qwen-settings.json (0600; see qwen_settings_file.h).
 * credentialEnv(): OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL from the provider/model.
 */
class QwenCodeAdapter final : public sdk::agents::AgentAdapter {
 public:
  static constexpr const char* kName = "qwen-code";
  static constexpr const char* kSettingsFile = "qwen-settings.json";

  std::string name() const override { return kName; }
  std::vector<std::string> aliases() const override { return {"qwen"}; }
  std::string binary() const override { return "qwen"; }
  sdk::agents::AdapterCapabilities capabilities() const override;
  std::vector<std::vector<std::string>> installSteps() const override;
  std::vector<std::string> validate(const sdk::agents::AgentSpec& spec) const override;
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override;
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext& turn) const override;
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override;
  /** Adds qwen's unknown-session message (invalid_request) to the common rules. */
  sdk::agents::FailureInfo classifyFailure(int exit_code,
                                           std::string_view stderr_tail) const override;
};

/** The --approval-mode for a permissions value: plan, auto-edit or yolo. */
std::string_view qwenApprovalMode(sdk::agents::Permissions permissions);

}  // namespace abx::plugins::adapters
