#include "json_rpc.h"

namespace abx::plugins::mcp {

RpcMessage classify(const sdk::Json& message) {
  RpcMessage m;
  if (!message.isObject()) {
    m.problem = "A JSON-RPC message must be an object";
    return m;
  }
  if (message.get("jsonrpc").stringView() != "2.0" || !message.get("jsonrpc").isString()) {
    m.problem = "jsonrpc must be \"2.0\"";
    return m;
  }
  auto id = message.get("id");
  const auto id_kind = id.kind();
  const bool has_id = id_kind != sdk::JsonKind::missing;
  if (has_id) {
    // MCP: an id is a string or an integer, never null.
    if (id_kind != sdk::JsonKind::string && id_kind != sdk::JsonKind::integer) {
      m.problem = "id must be a string or an integer";
      return m;
    }
    m.id = id.dump();
  }
  auto method = message.get("method");
  if (method.isMissing()) {
    if (has_id && (message.has("result") || message.has("error"))) {
      m.kind = RpcMessage::Kind::response;
      return m;
    }
    m.problem = "Missing method";
    return m;
  }
  if (!method.isString() || method.stringView().empty()) {
    m.problem = "method must be a non-empty string";
    return m;
  }
  m.method = std::string(method.stringView());
  m.params = message.get("params");
  if (!m.params.isMissing() && !m.params.isObject()) {
    m.kind = RpcMessage::Kind::invalid;
    m.problem = "params must be an object";
    return m;
  }
  m.kind = has_id ? RpcMessage::Kind::request : RpcMessage::Kind::notification;
  return m;
}

bool parseBody(std::string_view text, bool allow_batch, RpcBody& out) {
  auto parsed = sdk::Json::parse(text);
  if (!parsed) return false;
  if (parsed->isArray() && allow_batch) {
    out.batch = true;
    for (const auto& element : parsed->elements()) out.messages.push_back(classify(element));
    if (out.messages.empty()) {
      RpcMessage empty;
      empty.problem = "An empty batch";
      out.batch = false;
      out.messages.push_back(std::move(empty));
    }
    return true;
  }
  if (parsed->isArray()) {
    RpcMessage m;
    m.problem = "Batches are not part of this protocol revision";
    out.messages.push_back(std::move(m));
    return true;
  }
  out.messages.push_back(classify(*parsed));
  return true;
}

std::string rpcResult(std::string_view id, std::string_view result) {
  sdk::JsonWriter w;
  w.beginObject().member("jsonrpc", "2.0").key("id").raw(id).key("result").raw(result);
  return w.endObject().take();
}

std::string rpcError(std::string_view id, int code, std::string_view message) {
  sdk::JsonWriter w;
  w.beginObject().member("jsonrpc", "2.0").key("id").raw(id).key("error").beginObject();
  w.member("code", code).member("message", message).endObject();
  return w.endObject().take();
}

std::string rpcNotification(std::string_view method, std::string_view params) {
  sdk::JsonWriter w;
  w.beginObject().member("jsonrpc", "2.0").member("method", method).key("params").raw(params);
  return w.endObject().take();
}

}  // namespace abx::plugins::mcp
