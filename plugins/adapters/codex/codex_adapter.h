// CodexAdapter: `runtime: codex`, OpenAI's Codex CLI (@openai/codex, verified
// against 0.169.0) run headless as `codex exec --json ... -` with the prompt
// on stdin and resumed with `codex exec resume ... <thread_id> -`.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * buildInvocation():
 *  argv  codex exec [resume] --json --skip-git-repo-check <permissions>
 *        <offline switches> [-c model=…] [provider] [-c developer_instructions=…]
 *        [-c model_reasoning_effort=…] [MCP servers] <extra_args> [<thread_id>] -
 *  - permissions: read_only / workspace_write -> `--sandbox read-only|workspace-write`
 *    on a first turn, `-c sandbox_mode="…"` on resume (`exec resume` has no --sandbox);
 *    full_access -> --dangerously-bypass-approvals-and-sandbox. codex exec never asks
 *    for approval (its default approval_policy there is "never").
 *  - credentials out of reach of the model's shell commands: codex 0.169 hands
 *    its whole environment to the shells its tools run, so
 *    -c shell_environment_policy.exclude=["ABX_CODEX_*"] (+ "OPENAI_API_KEY",
 *    "CODEX_API_KEY" when credentialEnv() sets them) hides the provider key and
 *    MCP header values; spec.secrets stay visible (they are meant for tools).
 *  - offline switches, always (transcripts/stray-traffic.md: without
 *    `--disable plugins` codex calls chatgpt.com and github.com on every turn):
 *    -c analytics.enabled=false -c feedback.enabled=false -c otel.exporter="none"
 *    -c otel.trace_exporter="none" -c otel.metrics_exporter="none"
 *    -c check_for_update_on_startup=false --disable plugins
 *  - provider.base_url -> a provider "abx": -c model_provider="abx",
 *    model_providers.abx.{name, base_url, wire_api (default responses), env_key}; the
 *    key is read by codex from env ABX_CODEX_PROVIDER_API_KEY (credentialEnv()).
 *  - instructions + the turn's extra_instructions (blank line between) ->
 *    developer_instructions: codex adds them as a developer message after its own.
 *  - MCP servers (definition, then the turn's): see codex_mcp_config.h.
 *  - stdin: the prompt. env: MCP header variables only (the runtime adds
 *    credentialEnv(), spec.env and spec.secrets itself). No file.
 * limits.max_turns: codex has no such switch; validate() refuses it.
 * limits.max_budget_usd: no switch either; it is ignored.
 */
class CodexAdapter final : public sdk::agents::AgentAdapter {
 public:
  static constexpr const char* kName = "codex";
  static constexpr const char* kBinary = "codex";
  static constexpr const char* kProviderId = "abx";
  /** The custom provider's env_key. */
  static constexpr const char* kProviderKeyEnv = "ABX_CODEX_PROVIDER_API_KEY";

  std::string name() const override { return kName; }
  std::string binary() const override { return kBinary; }
  sdk::agents::AdapterCapabilities capabilities() const override;
  std::vector<std::vector<std::string>> installSteps() const override;
  std::vector<std::string> validate(const sdk::agents::AgentSpec& spec) const override;
  sdk::Result<sdk::agents::Invocation> buildInvocation(
      const sdk::agents::TurnContext& turn) const override;
  /** A CodexJsonlParser that turns codex's thread totals into this turn's usage. */
  std::unique_ptr<sdk::agents::EventParser> newParser(
      const sdk::agents::TurnContext& turn) const override;
  /**
   * provider.api_key with base_url -> ABX_CODEX_PROVIDER_API_KEY; without
   * base_url -> OPENAI_API_KEY and CODEX_API_KEY (codex exec's own key
   * variable); no key -> nothing (codex uses its own login under $HOME/.codex).
   */
  sdk::agents::EnvList credentialEnv(const sdk::agents::AgentSpec& spec) const override;
  /** classifyCodexFailure(): codex's 401/429/context/resume texts. */
  sdk::agents::FailureInfo classifyFailure(int exit_code,
                                           std::string_view stderr_tail) const override;
};

}  // namespace abx::plugins::adapters
