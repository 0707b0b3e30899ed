// CursorAdapter: the `cursor` runtime (alias `cursor-agent`), Cursor's
// cursor-agent CLI in print mode. Built from Cursor's public CLI
// documentation: no binary or transcript exists here, so GET
// /v1/agents/runtimes reports it experimental.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * buildInvocation():
 *  - argv: cursor-agent -p --output-format stream-json --stream-partial-output --trust
 *    [--mode plan (read_only) | --force (full_access)] [--approve-mcps (MCP servers)]
 *    [--model=M] [--resume=<chat_id>] spec.extra_args -- "<prompt>". The prompt is
 *    the last argument (cursor-agent cannot read stdin); definition and per-turn
 *    instructions go first in it ("<instructions>\n\n<prompt>": no system-prompt flag).
 *  - MCP servers: merged into <workdir>/.cursor/mcp.json (cursor_mcp_file.h), header
 *    values in env as ABX_MCP_<i>_<HEADER>.
 *  - credentialEnv(): CURSOR_API_KEY.
 * validate(): provider.base_url / wire_api, max_turns and max_budget_usd are errors.
 */
class CursorAdapter final : public sdk::agents::AgentAdapter {
 public:
  static constexpr const char* kName = "cursor";

  std::string name() const override { return kName; }
  std::vector<std::string> aliases() const override { return {"cursor-agent"}; }
  std::string binary() const override { return "cursor-agent"; }
  sdk::agents::AdapterCapabilities capabilities() const override;
  sdk::agents::PromptTransport promptTransport() const override {
    return sdk::agents::PromptTransport::argv;
  }
  std::vector<std::vector<std::string>> installSteps() const override;
  std::vector<std::string> validate(const sdk::agents::AgentSpec& spec) const override;
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override;
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext& turn) const override;
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override;
  sdk::agents::FailureInfo classifyFailure(int exit_code,
                                           std::string_view stderr_tail) const override;
};

}  // namespace abx::plugins::adapters
