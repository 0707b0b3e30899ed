// The PTY port's HTTP side of the handshake: where a head ends, the strict
// parse (lower-case names, trimmed values; 400, 431, 505), the checks of an
// upgrade request (POCO's messages), the RFC 6455 accept key, and the bytes
// of a refusal.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "ws_http.h"

namespace abx::plugins::terminal {
namespace {

HandshakeHead parsed(const std::string& text) {
  auto result = parseHandshakeHead(text);
  if (auto* error = std::get_if<HeadError>(&result)) ADD_FAILURE() << error->message;
  return std::holds_alternative<HandshakeHead>(result) ? std::get<HandshakeHead>(result)
                                                       : HandshakeHead{};
}

HeadError refused(const std::string& text) {
  auto result = parseHandshakeHead(text);
  EXPECT_TRUE(std::holds_alternative<HeadError>(result)) << text;
  return std::holds_alternative<HeadError>(result) ? std::get<HeadError>(result) : HeadError{};
}

constexpr const char* kUpgrade =
    "GET /pty?session_id=abc HTTP/1.1\r\nHost: 127.0.0.1:9001\r\n"
    "Connection: keep-alive, Upgrade\r\nUpgrade: WebSocket\r\n"
    "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key:  dGhlIHNhbXBsZSBub25jZQ== \r\n\r\n";

TEST(WsHttp, HeadEndsAtTheFirstBlankLine) {
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n\r\nframes"), 27u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\nHost: a\n\nframes"), 24u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n"), std::string::npos);
  EXPECT_EQ(headEnd(""), std::string::npos);
}

TEST(WsHttp, ParsesMethodTargetAndLowerCaseFields) {
  auto head = parsed(kUpgrade);
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.target, "/pty?session_id=abc");
  ASSERT_EQ(head.headers.size(), 5u);
  EXPECT_EQ(head.headers[0].first, "host");
  EXPECT_EQ(head.header("sec-websocket-key"), "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(head.header("Host"), std::nullopt);  // names are looked up lower-case
}

TEST(WsHttp, MalformedHeadsAreRefused) {
  EXPECT_EQ(refused("GET /pty\r\n\r\n").status, 400);
  EXPECT_EQ(refused("GET /pty HTTP/2.0\r\n\r\n").status, 505);
  EXPECT_EQ(refused("GET /p ty HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(refused("G(T /pty HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(refused("GET /pty HTTP/1.1\r\nHost : a\r\n\r\n").status, 400);
  EXPECT_EQ(refused("GET /pty HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n").message,
            "Obsolete line folding is not accepted");
  EXPECT_EQ(refused("GET /pty HTTP/1.1\r\nNoColon\r\n\r\n").status, 400);
  std::string many = "GET /pty HTTP/1.1\r\n";
  for (std::size_t i = 0; i <= kMaxHeaderFields; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  EXPECT_EQ(refused(many + "\r\n").status, 431);
}

TEST(WsHttp, UpgradeChecksFollowRfc6455) {
  auto ok = checkUpgrade(parsed(kUpgrade));
  EXPECT_TRUE(ok.websocket);
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.key, "dGhlIHNhbXBsZSBub25jZQ==");

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
