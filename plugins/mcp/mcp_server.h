// McpServer: the MCP Streamable HTTP transport (revision 2025-06-18; also
// 2025-03-26) at /mcp. POST carries JSON-RPC; the answer is JSON, or SSE
// for a tool call that asked for progress and streams. GET answers 405 (no
// server-initiated stream: the server sends nothing unasked). DELETE ends a
// session. Tools and resources are the caller's offered operations,
// reached in-process through HostContext::call.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/host_context.h"
#include "abx/sdk/metrics.h"
#include "json_rpc.h"
#include "mcp_sessions.h"
#include "resources.h"
#include "tool_catalog.h"

namespace abx::plugins::mcp {

inline constexpr const char* kLatestRevision = "2025-06-18";
/** The revisions this server speaks, newest first. */
const std::vector<std::string>& supportedRevisions();

struct McpLimits {
  std::size_t max_sessions = 64;
  std::chrono::seconds idle{1800};
  std::size_t max_request_bytes = 4u << 20;
  ResourceLimits resources;
};

class McpServer {
 public:
  McpServer(sdk::HostContext& host, const McpLimits& limits);

  std::optional<sdk::Response> post(const sdk::Request& request, sdk::SseStream& sse);
  sdk::Response get(const sdk::Request& request);
  sdk::Response remove(const sdk::Request& request);
  std::size_t openSessions() { return sessions_.size(); }

 private:
  /** One POST being answered. */
  struct Exchange {
    const sdk::Request& request;
    std::string session;
    std::string version;
    bool accepts_sse = false;
    sdk::SseStream* sse = nullptr;
    bool streamed = false;  // the answer went out as SSE
  };

  std::optional<sdk::Response> initialize(const RpcMessage& message, const sdk::Request& r);
  /** The answer to one request (a JSON-RPC response's text). */
  std::string dispatch(const RpcMessage& message, Exchange& ex);
  std::string toolsList(const RpcMessage& message, const sdk::Identity& caller);
  std::string toolsCall(const RpcMessage& message, Exchange& ex);
  std::string resourcesList(const RpcMessage& message, const sdk::Identity& caller);
  std::string resourcesRead(const RpcMessage& message, const sdk::Identity& caller);
  /** The tools of @p caller; @p all: also those its policy denies (to name the refusal). */
  std::vector<Tool> tools(const sdk::Identity& caller, bool all);
  void count(std::string_view tool, std::string_view outcome);

  sdk::HostContext& host_;
  McpLimits limits_;
  SessionTable sessions_;
  sdk::CounterFamily* calls_ = nullptr;
};

}  // namespace abx::plugins::mcp
