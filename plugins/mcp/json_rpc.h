// JSON-RPC 2.0 as MCP's Streamable HTTP transport carries it: a POST body is
// one message, or (revision 2025-03-26 only) a batch of them. This layer
// classifies the messages and writes the answers; what a method does is
// mcp_server's business.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"

namespace abx::plugins::mcp {

/** The JSON-RPC error codes the server answers with. */
namespace rpc_error {
inline constexpr int kParse = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternal = -32603;
}  // namespace rpc_error

struct RpcMessage {
  enum class Kind { request, notification, response, invalid };
  Kind kind = Kind::invalid;
  /** The id as JSON text ("1", "\"abc\""); "null" when there is none. */
  std::string id = "null";
  std::string method;
  sdk::Json params = sdk::Json::missing();
  /** Why an invalid message is invalid. */
  std::string problem;
};

struct RpcBody {
  bool batch = false;
  std::vector<RpcMessage> messages;
};

/** Classifies one parsed message. */
RpcMessage classify(const sdk::Json& message);

/**
 * Parses a POST body. A batch is taken only when @p allow_batch (revision
 * 2025-03-26); otherwise an array is one invalid message.
 * @return false with @p out untouched when the text is not JSON (-32700).
 */
bool parseBody(std::string_view text, bool allow_batch, RpcBody& out);

/** {"jsonrpc":"2.0","id":<id>,"result":<result JSON text>} */
std::string rpcResult(std::string_view id, std::string_view result);
/** {"jsonrpc":"2.0","id":<id>,"error":{"code","message"}} */
std::string rpcError(std::string_view id, int code, std::string_view message);
/** {"jsonrpc":"2.0","method":<method>,"params":<params JSON text>} */
std::string rpcNotification(std::string_view method, std::string_view params);

}  // namespace abx::plugins::mcp
