// Running a tool: its arguments become an in-process call of its endpoint
// (HostContext::call, so admission, limits, handler and audit are the HTTP
// route's own), and the endpoint's answer becomes an MCP CallToolResult. A
// refusal is a result with isError true whose text is the refusal's body,
// naming the rule as the 403 does.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/host_context.h"
#include "tool_catalog.h"

namespace abx::plugins::mcp {

struct ToolOutcome {
  std::string result;  // CallToolResult JSON text
  /** For the metrics: ok, error, denied, limited. */
  std::string outcome;
};

/** Called once per streamed event with its text; false stops the stream. */
using ProgressFn = std::function<bool(std::string_view message)>;

/** The LocalCall of @p tool with @p args, or the message of a bad argument. */
std::optional<std::string> buildCall(const Tool& tool, const sdk::Json& args, sdk::LocalCall& call);

/** Runs @p tool; with @p progress set and a streaming endpoint offered,
 *  through the stream, each event reported as it comes. */
ToolOutcome runTool(sdk::HostContext& host, const Tool& tool, sdk::LocalCall call,
                    const ProgressFn& progress);

/** The CallToolResult of an endpoint's answer (exposed for the unit tests). */
ToolOutcome toolResult(const Tool& tool, const sdk::Response& response);

/** Standard base64 (padding and ASCII whitespace allowed); nullopt when invalid. */
std::optional<std::string> decodeBase64(std::string_view text);
/** True when @p bytes are well-formed UTF-8. */
bool validUtf8(std::string_view bytes);

}  // namespace abx::plugins::mcp
