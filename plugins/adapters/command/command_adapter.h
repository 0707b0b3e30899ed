// CommandAdapter: `runtime: command`, an agent CLI described entirely by its
// definition (command: {argv, parser, resume_argv}); no binary of its own.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * buildInvocation():
 *  - argv: command.argv, or on a resumed turn (native_session_id set)
 *    command.resume_argv with every "{session_id}" (also inside an element,
 *    e.g. "--session={session_id}") replaced by the id; an empty resume_argv
 *    reuses argv. spec.extra_args are appended in both cases.
 *  - stdin: the prompt; extra_instructions, when present, go first followed
 *    by a blank line ("<instructions>\n\n<prompt>").
 *  - env: spec.env then spec.secrets (credentialEnv() is spec.secrets).
 * healthArgv() is empty: the binary comes from each definition.
 */
class CommandAdapter final : public sdk::agents::AgentAdapter {
 public:
  static constexpr const char* kName = "command";
  static constexpr const char* kSessionPlaceholder = "{session_id}";

  std::string name() const override { return kName; }
  std::string binary() const override { return ""; }
  sdk::agents::AdapterCapabilities capabilities() const override;
  std::vector<std::string> validate(const sdk::agents::AgentSpec& spec) const override;
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override;
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext& turn) const override;
  std::vector<std::string> healthArgv() const override { return {}; }
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override;
};

/** @p text with every "{session_id}" replaced by @p session_id. */
std::string substituteSessionId(std::string text, std::string_view session_id);

}  // namespace abx::plugins::adapters
