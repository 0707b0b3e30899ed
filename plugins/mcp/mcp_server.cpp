#include "mcp_server.h"

#include <algorithm>

#include "tool_arguments.h"
#include "tool_call.h"

namespace abx::plugins::mcp {
namespace {

constexpr std::string_view kSessionHeader = "mcp-session-id";

sdk::Response rpcHttp(int status, std::string body) {
  return sdk::Response::json(std::move(body), status);
}

sdk::Response transportError(int status, int code, std::string_view message) {
  return rpcHttp(status, rpcError("null", code, message));
}

bool accepts(const sdk::Request& r, std::string_view type) {
  auto accept = r.header("accept");
  return accept && (accept->find(type) != std::string_view::npos ||
                    accept->find("*/*") != std::string_view::npos);
}

bool supported(std::string_view version) {
  const auto& all = supportedRevisions();
  return std::find(all.begin(), all.end(), version) != all.end();
}

std::string serverInfo(const sdk::HostContext& host, const std::string& version) {
  sdk::JsonWriter w;
  w.beginObject().member("protocolVersion", version).key("capabilities").beginObject();
  w.key("tools").beginObject().member("listChanged", false).endObject();
  w.key("resources").beginObject().member("listChanged", false).member("subscribe", false);
  w.endObject().endObject().key("serverInfo").beginObject();
  w.member("name", "agent-sandbox-server").member("version", host.info().server_version);
  w.endObject().member("instructions",
                       "Tools act on the sandbox this server runs in; each is an HTTP route of "
                       "the server, admitted, limited and audited by its policy.");
  return w.endObject().take();
}

// The body as it came: the pipeline only holds it to max_request_bytes, so
// a batch (an array) and text that is not JSON reach the JSON-RPC layer.
std::string readBody(const sdk::Request& r) {
  if (!r.body_reader) return r.body;
  std::string body;
  body.reserve(static_cast<std::size_t>(r.body_reader->length()));
  char buffer[16 * 1024];
  while (std::size_t n = r.body_reader->read(buffer, sizeof buffer)) body.append(buffer, n);
  return body;
}

}  // namespace

const std::vector<std::string>& supportedRevisions() {
  static const std::vector<std::string> kRevisions = {kLatestRevision, "2025-03-26"};
  return kRevisions;
}

McpServer::McpServer(sdk::HostContext& host, const McpLimits& limits)
    : host_(host), limits_(limits), sessions_(limits.max_sessions, limits.idle) {
  calls_ = &host.metrics().counter("abx_mcp_tool_calls_total",
                                   "MCP tool calls by tool and outcome (ok, error, denied, "
                                   "limited, invalid).",
                                   {"tool", "outcome"});
  host.metrics().callbackGauge("abx_mcp_sessions_open", "MCP sessions open.",
                               [this] { return static_cast<double>(sessions_.size()); });
}

void McpServer::count(std::string_view tool, std::string_view outcome) {
  if (calls_) calls_->labels({tool, outcome}).inc();
}

std::vector<Tool> McpServer::tools(const sdk::Identity& caller, bool all) {
  sdk::Identity viewer = caller;
  // Every scope: the operations the policy enables, whoever may call them,
  // so a call of a tool the caller lacks the scopes of is refused by the
  // route itself, with the rule its 403 names.
  if (all) viewer.scopes = {"*"};
  auto doc = sdk::Json::parse(host_.openApiFor(viewer));
  return toolsFor(doc ? *doc : sdk::Json::missing(), host_.commands().list(), caller);
}

std::optional<sdk::Response> McpServer::initialize(const RpcMessage& m, const sdk::Request& r) {
  auto asked = m.params.get("protocolVersion");
  if (!asked.isString())
    return rpcHttp(400, rpcError(m.id, rpc_error::kInvalidParams,
                                 "initialize needs params.protocolVersion (a string)"));
  // Negotiation: the client's revision when spoken here, else the newest.
  std::string version(asked.stringView());
  if (!supported(version)) version = kLatestRevision;
  auto id = sessions_.open(r.identity.id, version);
  if (!id)
    return rpcHttp(503, rpcError(m.id, rpc_error::kInternal,
                                 "Too many MCP sessions are open; end one (DELETE /mcp) or wait"));
  auto response = rpcHttp(200, rpcResult(m.id, serverInfo(host_, version)));
  response.headers.emplace_back("Mcp-Session-Id", *id);
  return response;
}

std::optional<sdk::Response> McpServer::post(const sdk::Request& r, sdk::SseStream& sse) {
  if (auto v = r.header("mcp-protocol-version"); v && !supported(*v))
    return transportError(400, rpc_error::kInvalidRequest,
                          "Unsupported MCP-Protocol-Version: " + std::string(*v));
  const auto session_id = r.header(kSessionHeader);
  SessionTable::Session session;
  if (session_id && sessions_.use(std::string(*session_id), r.identity.id, &session) !=
                        SessionTable::Lookup::found)
    return transportError(404, rpc_error::kInvalidRequest, "Session not found");
  RpcBody body;
  if (!parseBody(readBody(r), session_id && session.protocol_version == "2025-03-26", body))
    return transportError(400, rpc_error::kParse, "Parse error: the body is not JSON");
  if (!body.batch && body.messages.size() == 1 && body.messages[0].method == "initialize" &&
      body.messages[0].kind == RpcMessage::Kind::request)
    return initialize(body.messages[0], r);
  if (!session_id)
    return transportError(400, rpc_error::kInvalidRequest,
                          "Missing Mcp-Session-Id: initialize first");

  Exchange ex{r, std::string(*session_id), session.protocol_version,
              accepts(r, "text/event-stream"), &sse};
  std::vector<std::string> answers;
  for (const auto& m : body.messages) {
    if (m.kind == RpcMessage::Kind::invalid) {
      answers.push_back(rpcError(m.id, rpc_error::kInvalidRequest, m.problem));
    } else if (m.kind == RpcMessage::Kind::request) {
      // Streaming answers only a lone request: a batch is answered as JSON.
      ex.accepts_sse = ex.accepts_sse && !body.batch;
      answers.push_back(dispatch(m, ex));
    } else if (m.method == "notifications/initialized") {
      sessions_.markInitialized(ex.session);
    }
  }
  if (ex.streamed) {
    sse.event("message", answers.front());
    return std::nullopt;
  }
  if (answers.empty()) return sdk::Response::json("", 202);
  if (!body.batch)
    return rpcHttp(body.messages[0].kind == RpcMessage::Kind::invalid ? 400 : 200, answers.front());
  std::string all = "[";
  for (std::size_t i = 0; i < answers.size(); ++i) all += (i ? "," : "") + answers[i];
  return rpcHttp(200, all + "]");
}

std::string McpServer::dispatch(const RpcMessage& m, Exchange& ex) {
  const auto& caller = ex.request.identity;
  if (m.method == "ping") return rpcResult(m.id, "{}");
  if (m.method == "initialize")
    return rpcError(m.id, rpc_error::kInvalidRequest, "This session is already initialized");
  if (m.method == "tools/list") return toolsList(m, caller);
  if (m.method == "tools/call") return toolsCall(m, ex);
  if (m.method == "resources/list") return resourcesList(m, caller);
  if (m.method == "resources/read") return resourcesRead(m, caller);
  if (m.method == "resources/templates/list") return rpcResult(m.id, R"({"resourceTemplates":[]})");
  return rpcError(m.id, rpc_error::kMethodNotFound, "Method not found: " + m.method);
}

std::string McpServer::toolsList(const RpcMessage& m, const sdk::Identity& caller) {
  sdk::JsonWriter w;
  w.beginObject().key("tools").beginArray();
  for (const auto& tool : tools(caller, false)) {
    w.beginObject().member("name", tool.name).member("description", tool.description);
    w.key("inputSchema").raw(tool.input_schema).endObject();
  }
  return rpcResult(m.id, w.endArray().endObject().take());
}

std::string McpServer::toolsCall(const RpcMessage& m, Exchange& ex) {
  auto name = m.params.get("name");
  if (!name.isString()) {
    count("unknown", "invalid");
    return rpcError(m.id, rpc_error::kInvalidParams, "tools/call needs params.name (a string)");
  }
  auto all = tools(ex.request.identity, true);
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const Tool& t) { return t.name == name.stringView(); });
  if (it == all.end()) {
    count("unknown", "invalid");
    return rpcError(m.id, rpc_error::kInvalidParams,
                    "Unknown tool: " + std::string(name.stringView()));
  }
  auto args = m.params.get("arguments");
  sdk::LocalCall call;
  call.identity = ex.request.identity;
  auto problem = checkArguments(*it, args);
  if (!problem) problem = buildCall(*it, args, call);
  if (problem) {
    count(it->name, "invalid");
    return rpcError(m.id, rpc_error::kInvalidParams,
                    "Invalid arguments for " + it->name + ": " + *problem);
  }
  auto token = m.params.get("_meta").get("progressToken");
  ProgressFn progress;
  if (ex.accepts_sse && !token.isAbsent() && !it->stream_endpoint.empty()) {
    ex.sse->begin();
    ex.streamed = true;
    progress = [&ex, token, n = 0](std::string_view message) mutable {
      sdk::JsonWriter p;
      p.beginObject().key("progressToken").value(token).member("progress", ++n);
      p.member("message", message).endObject();
      return ex.sse->event("message", rpcNotification("notifications/progress", p.take()));
    };
  }
  auto outcome = runTool(host_, *it, std::move(call), progress);
  count(it->name, outcome.outcome);
  return rpcResult(m.id, outcome.result);
}

std::string McpServer::resourcesList(const RpcMessage& m, const sdk::Identity& caller) {
  std::size_t cursor = 0;
  if (auto c = m.params.get("cursor"); c.isString()) {
    try {
      cursor = std::stoul(std::string(c.stringView()));
    } catch (const std::exception&) {
      return rpcError(m.id, rpc_error::kInvalidParams, "Invalid cursor");
    }
  }
  return rpcResult(m.id, listResources(host_, caller, cursor, limits_.resources));
}

std::string McpServer::resourcesRead(const RpcMessage& m, const sdk::Identity& caller) {
  auto uri = m.params.get("uri");
  if (!uri.isString())
    return rpcError(m.id, rpc_error::kInvalidParams, "resources/read needs params.uri (a string)");
  auto read = readResource(host_, caller, std::string(uri.stringView()));
  if (!read.error.empty()) return rpcError(m.id, -32002, read.error);
  return rpcResult(m.id, read.result);
}

sdk::Response McpServer::get(const sdk::Request&) {
  auto response = sdk::Response::error(
      405, "This server opens no server-initiated stream: POST requests to /mcp", "ValueError",
      "method_not_allowed");
  response.headers.emplace_back("Allow", "POST, DELETE");
  return response;
}

sdk::Response McpServer::remove(const sdk::Request& r) {
  auto id = r.header(kSessionHeader);
  if (!id)
    return sdk::Response::error(400, "Missing Mcp-Session-Id", "ValueError", "missing_session");
  if (!sessions_.close(std::string(*id), r.identity.id))
    return sdk::Response::error(404, "Session not found", "ValueError", "unknown_session");
  return sdk::Response::json(R"({"ended":true})");
}

}  // namespace abx::plugins::mcp
