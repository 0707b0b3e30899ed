// The project MCP config cursor-agent reads, <workdir>/.cursor/mcp.json: the
// cursor adapter merges the turn's MCP servers into it (cursor-agent has no
// per-invocation MCP flag). Rules (agents spec §5, "Qwen/Cursor MCP note"):
//  - only the `mcpServers` key changes: other keys and other servers stay;
//  - a file that exists but is not a JSON object is never overwritten;
//  - values a server needs at run time are `${env:NAME}` references (cursor's
//    interpolation syntax), their values go into the child env only;
//  - the write is atomic (temp file + rename in .cursor/) and never follows a
//    symlink at .cursor or mcp.json;
//  - when <workdir>/.git is a directory, `/.cursor/mcp.json` is added to
//    .git/info/exclude once, so the file never shows up in `git status`.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/status.h"

namespace abx::plugins::adapters {

/** The `mcpServers` entries for @p servers, and the env their placeholders name. */
struct CursorMcpServers {
  std::string servers_json; /**< a JSON object: name -> server config */
  sdk::agents::EnvList env; /**< header values (secret) */
};

CursorMcpServers buildCursorMcpServers(const std::vector<sdk::agents::McpServerSpec>& servers);

/** @p existing (a file's text, or "" for none) with @p servers merged in; error if unmergeable. */
sdk::Result<std::string> mergeCursorMcpConfig(const std::string& existing,
                                              const std::string& servers_json);

/** Merges @p servers_json into <workdir>/.cursor/mcp.json and updates .git/info/exclude. */
sdk::Status writeCursorMcpConfig(const std::string& workdir, const std::string& servers_json);

/** The exclude line this adapter adds to .git/info/exclude. */
inline constexpr const char* kCursorMcpExcludeLine = "/.cursor/mcp.json";

}  // namespace abx::plugins::adapters
