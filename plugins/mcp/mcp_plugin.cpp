#include "mcp_plugin.h"

#include "abx/sdk/route_table.h"

namespace abx::plugins::mcp {
namespace {

constexpr const char* kGroup = "mcp";

std::optional<sdk::Response> post(McpServer& server, const sdk::Request& r, sdk::SseStream& sse) {
  return server.post(r, sse);
}
sdk::Response get(McpServer& server, const sdk::Request& r) { return server.get(r); }
sdk::Response remove(McpServer& server, const sdk::Request& r) { return server.remove(r); }

sdk::Result<McpLimits> readLimits(const sdk::Settings& settings) {
  McpLimits limits;
  auto positive = [&](const char* key, std::int64_t fallback) -> sdk::Result<std::int64_t> {
    auto value = settings.integer(key).value_or(fallback);
    if (value < 1)
      return sdk::Status::error(std::string("mcp setting ") + key + " must be at least 1",
                                "ValueError");
    return value;
  };
  auto sessions = positive("max_sessions", 64);
  if (!sessions) return sessions.status();
  auto idle = positive("idle_timeout_seconds", 1800);
  if (!idle) return idle.status();
  auto bytes = positive("max_request_bytes", 4 << 20);
  if (!bytes) return bytes.status();
  limits.max_sessions = static_cast<std::size_t>(*sessions);
  limits.idle = std::chrono::seconds(*idle);
  limits.max_request_bytes = static_cast<std::size_t>(*bytes);
  return limits;
}

}  // namespace

sdk::Status McpPlugin::start(sdk::HostContext& host) {
  auto limits = readLimits(host.settings());
  if (!limits) return limits.status();
  if (auto s = host.routes().declareGroup(
          {kGroup, true,
           "The sandbox as an MCP server (Streamable HTTP): tools and resources from the "
           "caller's offered operations"});
      !s)
    return s;
  server_ = std::make_unique<McpServer>(host, *limits);
  const std::vector<std::string> scopes = {"mcp:use"};
  return sdk::addRoutes(host.routes(), kGroup, server_.get(),
                        {{.method = "POST",
                          .path = "/mcp",
                          .endpoint = "mcp_post",
                          .summary = "MCP: one JSON-RPC message (or a 2025-03-26 batch)",
                          .scopes = scopes,
                          .stream = &post,
                          .raw_body = true,
                          .max_request_bytes = limits->max_request_bytes},
                         {.method = "GET",
                          .path = "/mcp",
                          .endpoint = "mcp_get",
                          .summary = "MCP: no server-initiated stream (405)",
                          .scopes = scopes,
                          .handler = &get},
                         {.method = "DELETE",
                          .path = "/mcp",
                          .endpoint = "mcp_delete",
                          .summary = "MCP: ends a session",
                          .scopes = scopes,
                          .handler = &remove}});
}

std::unique_ptr<sdk::Plugin> makeMcpPlugin(sdk::HostContext&) {
  return std::make_unique<McpPlugin>();
}

}  // namespace abx::plugins::mcp
