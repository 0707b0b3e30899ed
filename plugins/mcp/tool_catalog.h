// The MCP tools a caller is offered, derived from what the server already
// declares: an operation of the caller's OpenAPI document (the operations
// enabled and allowed for it, HostContext::openApiFor) becomes a tool whose
// input schema is the operation's path and query parameters and request
// body, with the document's $refs inlined; a declared command becomes a
// tool whose schema is its argument list. No schema is written twice.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/commands.h"
#include "abx/sdk/http.h"
#include "abx/sdk/json.h"

namespace abx::plugins::mcp {

/** Which endpoints are tools, under which names (the only hand-kept list). */
struct ToolBinding {
  const char* tool;
  const char* endpoint;
  /** The streaming sibling used when the client asked for progress; or nullptr. */
  const char* stream_endpoint = nullptr;
};
const std::vector<ToolBinding>& toolBindings();

struct Tool {
  std::string name;
  std::string endpoint;
  std::string stream_endpoint;  // "" when none is offered
  std::string description;
  /** The tool's inputSchema, JSON text. */
  std::string input_schema;
  /** Where each argument goes: path and query parameters by name; every
   *  other argument is a member of the JSON body. */
  std::vector<std::string> path_params;
  std::vector<std::string> query_params;
  /** A command tool: the command's name (the endpoint's {name}). */
  std::string command;
  /** The endpoint answers images (browser_screenshot). */
  bool image = false;
};

/** The tools of @p openapi (the caller's document) and of @p commands the
 *  caller may run (their scopes held by @p caller). */
std::vector<Tool> toolsFor(const sdk::Json& openapi,
                           const std::vector<const sdk::CommandSpec*>& commands,
                           const sdk::Identity& caller);

/** The schema @p node with every "#/components/schemas/X" of @p document inlined. */
void writeInlined(sdk::JsonWriter& w, const sdk::Json& node, const sdk::Json& document,
                  int depth = 0);

/** The operation object of endpoint @p id in @p openapi (missing when not offered),
 *  with its method and path template. */
struct Operation {
  sdk::Json op = sdk::Json::missing();
  std::string method;
  std::string path;
};
Operation findOperation(const sdk::Json& openapi, std::string_view id);

}  // namespace abx::plugins::mcp
