// The PTY port's HTTP side of the handshake: the checks of an upgrade
// request (POCO's messages), the RFC 6455 accept key, and the bytes of a
// refusal. The head itself is the SDK's parser (sdk_http_head_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "ws_http.h"

namespace abx::plugins::terminal {
namespace {

sdk::RequestHead parsed(const std::string& text) {
  auto result = sdk::parseRequestHead(text, kMaxHeaderFields);
  if (auto* error = std::get_if<sdk::HeadError>(&result)) ADD_FAILURE() << error->message;
  return std::holds_alternative<sdk::RequestHead>(result) ? std::get<sdk::RequestHead>(result)
                                                          : sdk::RequestHead{};
}

constexpr const char* kUpgrade =
    "GET /pty?session_id=abc HTTP/1.1\r\nHost: 127.0.0.1:9001\r\n"
    "Connection: keep-alive, Upgrade\r\nUpgrade: WebSocket\r\n"
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key:  dGhlIHNhbXBsZSBub25jZQ== \r\n\r\n";

TEST(WsHttp, UpgradeChecksFollowRfc6455) {
  auto ok = checkUpgrade(parsed(kUpgrade));
  EXPECT_TRUE(ok.websocket);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.key, "dGhlIHNhbXBsZSBub25jZQ==");

  // Names in any case.
  auto lower =
      checkUpgrade(parsed("GET /pty HTTP/1.1\r\nconnection: upgrade\r\nupgrade: websocket\r\n"
                          "sec-websocket-version: 13\r\nsec-websocket-key: k\r\n\r\n"));
  EXPECT_TRUE(lower.websocket);
  EXPECT_EQ(lower.key, "k");

  auto plain = checkUpgrade(parsed("GET /pty HTTP/1.1\r\nHost: a\r\n\r\n"));
  EXPECT_FALSE(plain.websocket);
  auto no_upgrade_token = checkUpgrade(
      parsed("GET /pty HTTP/1.1\r\nConnection: keep-alive\r\nUpgrade: websocket\r\n\r\n"));
  EXPECT_FALSE(no_upgrade_token.websocket);

  const std::string base = "GET /pty HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n";
  EXPECT_EQ(checkUpgrade(parsed(base + "\r\n")).error,
            "Missing Sec-WebSocket-Version in handshake request");
  EXPECT_EQ(checkUpgrade(parsed(base + "Sec-WebSocket-Version: 8\r\n\r\n")).error,
            "Unsupported WebSocket version requested: 8");
  EXPECT_EQ(checkUpgrade(parsed(base + "Sec-WebSocket-Version: 13\r\n\r\n")).error,
            "Missing Sec-WebSocket-Key in handshake request");
}

TEST(WsHttp, AcceptKeyIsTheRfcExample) {
  // RFC 6455 §1.3.
  EXPECT_EQ(webSocketAccept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_EQ(switchingProtocols("dGhlIHNhbXBsZSBub25jZQ=="),
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
}

TEST(WsHttp, ARefusalIsACompleteAnswerThatCloses) {
  auto response = sdk::Response::json(R"({"error":"rate limited"})", 429);
  response.headers = {{"Retry-After", "7"}};
  EXPECT_EQ(httpAnswer(response),
            "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\n"
            "Content-Type: application/json\r\nContent-Length: 24\r\nConnection: close\r\n\r\n"
            R"({"error":"rate limited"})");
}

}  // namespace
}  // namespace abx::plugins::terminal
