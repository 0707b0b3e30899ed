// Which neutral tool kind (command, file_change, web_search, todo_list, mcp,
// other) a Claude Code / Qwen Code tool name (or, by its own lists, another
// CLI's) stands for, so the runtime can show a `Bash` call and a
// `run_shell_command` call the same way.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "json_reads.h"

namespace abx::plugins::adapters {

struct ToolKind {
  std::string kind;   /**< command | file_change | web_search | todo_list | mcp | other */
  std::string server; /**< mcp only: the MCP server label */
  std::string name;   /**< mcp: the server's tool name; else the CLI's tool name */
};

/** A CLI's names for its built-in tools of each neutral kind. */
struct BuiltinToolNames {
  std::span<const std::string_view> command;
  std::span<const std::string_view> file_change;
  std::span<const std::string_view> web_search;
  std::span<const std::string_view> todo_list;
};

/** The kind @p names lists @p name under: command | file_change | web_search | todo_list | other.
 */
std::string builtinToolKind(std::string_view name, const BuiltinToolNames& names);

/** Classifies a stream-json tool_use name; MCP tools are `mcp__<server>__<tool>`. */
ToolKind classifyToolName(std::string_view name);

/**
 * The exit code a stream-json tool_result reports for a shell tool, read from
 * the text both CLIs put into a failed result: Claude `Exit code 2\n...`, Qwen
 * `...\nExit Code: 2\n...`. nullopt when there is none.
 */
std::optional<int> exitCodeFromToolResult(std::string_view content);

/**
 * What the wire calls a tool (agents spec §6.3): command_execution,
 * file_change, web_search, todo_list, or the MCP tool's own name; a tool of
 * no known kind keeps the CLI's name (Read, Grep, Task, ...).
 */
std::string wireToolName(const ToolKind& kind);

/**
 * The `content` of a stream-json object (a tool_result block, an assistant
 * message): a string as is, or the text of its text blocks, joined.
 */
std::string contentText(const sdk::Json& o);

}  // namespace abx::plugins::adapters
