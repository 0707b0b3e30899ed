// AgentAdapter: the contract between the agents plugin and one agent CLI
// (spec "Runtime adapter interface"). An adapter plugin provides an instance
// under the service id abx.agent_adapter.v1; the agents plugin finds it by
// name or alias. Adapters turn a resolved agent definition plus one turn's
// prompt into an Invocation (argv, env additions, stdin, files) and turn the
// CLI's stdout lines back into adapter-neutral ParsedEvents.
//
// Secrets (provider.api_key, git token, secrets.*, secret MCP headers) reach
// the adapter in AgentSpec, in memory only. An adapter must put them into
// Invocation::env only — never into argv, files or parsed events.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/status.h"
#include "abx/sdk/version.h"

namespace abx::sdk::agents {

using EnvList = std::vector<std::pair<std::string, std::string>>;

enum class Permissions { read_only, workspace_write, full_access };
enum class PromptTransport { stdin_pipe, argv };

struct ProviderSpec {
  std::string base_url;
  std::string api_key;  /**< secret */
  std::string wire_api; /**< codex only: "responses" | "chat" | "" */
};

struct GitSpec {
  std::string url;
  std::string ref;
  std::string token; /**< secret */
};

struct WorkspaceSpec {
  std::string path = "/workspace";
  std::optional<GitSpec> git;
};

struct McpHeader {
  std::string name;
  std::string value;
  bool secret = false; /**< value held a ${VAR} or was marked {secret: true} */
};

/** Either url (+headers) or command (+args). */
struct McpServerSpec {
  std::string name;
  std::string url;
  std::vector<McpHeader> headers;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::string> allowed_tools; /**< empty: all */
};

struct AgentLimits {
  std::optional<double> turn_timeout_s = 1800;
  std::optional<double> idle_timeout_s = 300;
  std::optional<int> max_turns;
  std::optional<double> max_budget_usd;
  std::optional<std::int64_t> max_output_bytes = 8 * 1024 * 1024;
  std::optional<int> cpu_seconds;
};

/** runtime: command only. */
struct CommandSpec {
  std::vector<std::string> argv;
  std::string parser = "text"; /**< text | jsonl-claude | jsonl-codex */
  std::vector<std::string> resume_argv;
};

/** A validated, ${VAR}-expanded agent definition. */
struct AgentSpec {
  std::string name;
  std::string runtime;
  std::string model;
  std::string instructions;
  ProviderSpec provider;
  WorkspaceSpec workspace;
  EnvList env;     /**< non-secret child env */
  EnvList secrets; /**< secret child env */
  std::vector<McpServerSpec> mcp_servers;
  Permissions permissions = Permissions::full_access;
  AgentLimits limits;
  std::vector<std::string> extra_args;
  std::optional<CommandSpec> command;
};

struct TokenUsage {
  std::int64_t input_tokens = 0;
  std::int64_t cached_input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t reasoning_tokens = 0;
  double cost_usd = 0;
};

/** Everything an adapter knows about one turn. */
struct TurnContext {
  const AgentSpec* spec = nullptr;
  std::string prompt;
  /** Per-turn instructions (Responses `instructions`, system/developer messages). */
  std::string extra_instructions;
  /** The CLI's own resume handle captured on an earlier turn; empty on the first. */
  std::optional<std::string> native_session_id;
  bool is_first_turn = true;
  std::string workdir;  /**< cwd of the CLI (spec.workspace.path) */
  std::string turn_dir; /**< private 0700 directory, removed after the turn */
  /** Per-turn MCP servers (Responses `tools: [{type: "mcp"}]`); headers are secret. */
  std::vector<McpServerSpec> extra_mcp_servers;
  std::string reasoning_effort; /**< Responses reasoning.effort, or "" */
  /** Since 1.2: the usage this session's earlier turns reported (their sum).
   *  A CLI that reports totals over its whole thread (codex, qwen) turns them
   *  into this turn's figures by subtracting it. */
  TokenUsage session_usage;
};

struct InvocationFile {
  std::string relpath; /**< relative to turn_dir; no "..", not absolute */
  std::string content;
  unsigned mode = 0600;
};

struct Invocation {
  std::vector<std::string> argv;         /**< argv[0] is looked up on PATH; never a secret */
  EnvList env;                           /**< additions to the allowlisted environment */
  std::optional<std::string> stdin_data; /**< nullopt: stdin is /dev/null */
  std::string cwd;                       /**< empty: TurnContext::workdir */
  std::vector<InvocationFile> files;
};

/** Adapter-neutral events a parser produces (spec "ParsedEvent kinds"). */
enum class ParsedKind {
  session,         /**< id = the CLI's resume handle */
  text_delta,      /**< id = message item, text = delta */
  message,         /**< id = message item, text = full text (replaces deltas) */
  reasoning_delta, /**< id = reasoning item, text = delta */
  reasoning,       /**< id = reasoning item, text = full text */
  tool_start,      /**< id, tool_kind, name, server, arguments, command */
  tool_output,     /**< id, text = output delta */
  tool_end,        /**< id, status, text = output, exit_code, error */
  usage,           /**< usage */
  error,           /**< code, text = message, fatal */
  result,          /**< ok, text, stop_reason, usage (if any) */
  log,             /**< text = a line that was not understood */
};

struct ParsedEvent {
  ParsedKind kind = ParsedKind::log;
  std::string id;
  std::string text;
  /** tool_start: command | mcp | file_change | web_search | todo_list | other. */
  std::string tool_kind;
  std::string name;      /**< tool name: MCP tool name or the tool kind */
  std::string server;    /**< MCP server label */
  std::string arguments; /**< JSON text */
  std::string command;   /**< tool_kind command: the command line */
  std::string status;    /**< tool_end: completed | failed */
  std::optional<int> exit_code;
  std::string error; /**< tool_end: error text */
  std::string code;  /**< error: a failure code (see FailureInfo) or "" */
  bool fatal = false;
  bool ok = true; /**< result */
  std::string stop_reason;
  std::optional<TokenUsage> usage;
};

/**
 * Reads one turn's stdout, line by line. Tolerant: a line that is not JSON
 * becomes a log event, an unknown JSON type is ignored. May throw; the
 * runtime then fails the turn with internal_error.
 * THREAD: used by one thread at a time.
 */
class ABX_SDK_API EventParser {
 public:
  virtual ~EventParser();
  /** @p line has no trailing newline. */
  virtual void feed(std::string_view line, std::vector<ParsedEvent>& out) = 0;
  /** After EOF of stdout and the child's exit. */
  virtual void finish(int exit_code, std::vector<ParsedEvent>& out) = 0;
};

/**
 * Failure codes: authentication_error, rate_limit_exceeded, request_timeout,
 * context_length_exceeded, sandbox_error, invalid_request, internal_error,
 * and the Responses-only runtime_not_installed and output_limit_exceeded.
 */
struct FailureInfo {
  std::string code = "internal_error";
  std::string message;
};

struct AdapterCapabilities {
  bool resume = false;
  bool partial_deltas = false;
  bool mcp = false;
  bool system_prompt = false;
  bool base_url = false;
  bool max_turns = false;
  bool budget = false;
  bool experimental = false; /**< built from documentation, not a live binary */
};

/**
 * THREAD: every method may be called from several turn threads at once;
 * adapters keep no per-turn state outside the parser they return.
 * OWNERSHIP: the providing plugin owns the instance until its stop().
 */
class ABX_SDK_API AgentAdapter {
 public:
  static constexpr const char* kServiceId = "abx.agent_adapter.v1";

  virtual std::string name() const = 0;
  virtual std::vector<std::string> aliases() const { return {}; }
  /** Executable looked up on PATH; "" when it comes from the definition. */
  virtual std::string binary() const = 0;
  virtual AdapterCapabilities capabilities() const = 0;
  virtual PromptTransport promptTransport() const { return PromptTransport::stdin_pipe; }
  /** Install commands for ABX_AGENTS_ALLOW_INSTALL=1 (never run otherwise). */
  virtual std::vector<std::vector<std::string>> installSteps() const { return {}; }

  /** Configuration errors for this runtime (e.g. cursor with base_url); empty when fine. */
  virtual std::vector<std::string> validate(const AgentSpec& spec) const = 0;
  virtual Result<Invocation> buildInvocation(const TurnContext& turn) const = 0;
  virtual std::unique_ptr<EventParser> newParser(const TurnContext& turn) const = 0;
  /** Default: {binary(), "--version"}. */
  virtual std::vector<std::string> healthArgv() const;
  /** Provider settings as child env (secret values included). */
  virtual EnvList credentialEnv(const AgentSpec& spec) const = 0;
  /** Default: classifyCommonFailure(). */
  virtual FailureInfo classifyFailure(int exit_code, std::string_view stderr_tail) const;

 protected:
  ~AgentAdapter();
};

/**
 * The failure table's text rules every CLI shares: 401/403 and key messages
 * → authentication_error; 429 and quota → rate_limit_exceeded; context window
 * → context_length_exceeded; exit 126/127 → runtime_not_installed; else
 * internal_error with the stderr tail's last line as message.
 */
ABX_SDK_API FailureInfo classifyCommonFailure(int exit_code, std::string_view stderr_tail);

/** The wire spelling of a permissions value: "read_only", "workspace_write", "full_access". */
ABX_SDK_API std::string_view permissionsName(Permissions p);

}  // namespace abx::sdk::agents
