#include "ws_http.h"

#include "abx/sdk/digest.h"
#include "abx/sdk/text_codecs.h"

namespace abx::plugins::terminal {

constexpr std::string_view kWebSocketGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

UpgradeCheck checkUpgrade(const sdk::RequestHead& head) {
  UpgradeCheck check;
  check.websocket = head.listHas("Connection", "upgrade") &&
                    sdk::equalsIgnoreCase(head.header("Upgrade").value_or(""), "websocket");
  if (!check.websocket) return check;
  const auto version = head.header("Sec-WebSocket-Version").value_or("");
  if (version.empty())
    check.error = "Missing Sec-WebSocket-Version in handshake request";
  else if (version != "13")
    check.error = "Unsupported WebSocket version requested: " + std::string(version);
  else if (check.key = std::string(head.header("Sec-WebSocket-Key").value_or(""));
           check.key.empty())
    check.error = "Missing Sec-WebSocket-Key in handshake request";
  return check;
}

std::string webSocketAccept(std::string_view key) {
  const auto digest = sdk::sha1(std::string(key) + std::string(kWebSocketGuid));
  return sdk::base64Encode({reinterpret_cast<const char*>(digest.data()), digest.size()});
}

std::string switchingProtocols(std::string_view key) {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Accept: " +
         webSocketAccept(key) + "\r\n\r\n";
}

std::string httpAnswer(const sdk::Response& response) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += sdk::reasonPhrase(response.status);
  out += "\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += response.body;
  return out;
}

}  // namespace abx::plugins::terminal
