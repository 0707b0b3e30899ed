// The abx.mcp plugin: owns the opt-in `mcp` group and serves the sandbox
// as an MCP server at /mcp (docs/mcp.md).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "mcp_server.h"

namespace abx::plugins::mcp {

inline constexpr char kMcpSettingsSchema[] =
    R"json({"type":"object","additionalProperties":false,"properties":{)json"
    R"json("max_sessions":{"type":"integer","default":64,"description":"MCP sessions open at once"},)json"
    R"json("idle_timeout_seconds":{"type":"integer","default":1800,)json"
    R"json("description":"seconds after which an unused session ends"},)json"
    R"json("max_request_bytes":{"type":"integer","default":4194304,)json"
    R"json("description":"largest POST /mcp body; the policy's limits.max_request_bytes wins"}}})json";

class McpPlugin final : public sdk::Plugin {
 public:
  /** Reads the settings, declares the group and adds the three routes. */
  sdk::Status start(sdk::HostContext& host) override;

 private:
  std::unique_ptr<McpServer> server_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeMcpPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::mcp
