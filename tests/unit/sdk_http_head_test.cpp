// The SDK's HTTP/1.x request-head parser, shared by the kernel's event loop
// and the terminal's WebSocket port: where a head ends, the request line and
// fields as sent with case-insensitive lookups, the keep-alive rule of each
// version, the refusals of what two readers could read two ways (folding,
// spaces before colons, two Content-Lengths) with their statuses, the limits,
// and the reason phrases of status lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "abx/sdk/http_head.h"

namespace abx::sdk {
namespace {

constexpr std::size_t kFields = 100;

RequestHead parsed(std::string_view text) {
  auto result = parseRequestHead(text, kFields);
  if (auto* error = std::get_if<HeadError>(&result)) ADD_FAILURE() << error->message;
  return std::holds_alternative<RequestHead>(result) ? std::get<RequestHead>(result)
                                                     : RequestHead{};
}

HeadError refused(std::string_view text) {
  auto result = parseRequestHead(text, kFields);
  EXPECT_TRUE(std::holds_alternative<HeadError>(result)) << text;
  return std::holds_alternative<HeadError>(result) ? std::get<HeadError>(result) : HeadError{};
}

TEST(SdkHttpHead, FindsTheEndOfTheHeadWithEitherLineEnding) {
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n\r\nbody"), 27u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\nHost: a\n\nbody"), 24u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n"), std::string::npos);
  EXPECT_EQ(headEnd(""), std::string::npos);
}

TEST(SdkHttpHead, ParsesLineAndFieldsAsSent) {
  auto h = parsed(
      "POST /v1/responses?x=%20 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n"
      "Content-Length:  12 \r\nX-Access-Token: t\r\nx-access-token: u\r\n\r\n");
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/v1/responses?x=%20");
  EXPECT_EQ(h.minor_version, 1);
  ASSERT_EQ(h.headers.size(), 4u);
  EXPECT_EQ(h.headers[0].first, "Host");  // names as sent, values trimmed
  EXPECT_EQ(h.headers[1].second, "12");
  EXPECT_EQ(h.values("content-length"), std::vector<std::string_view>{"12"});
  EXPECT_EQ(h.values("X-ACCESS-TOKEN"), (std::vector<std::string_view>{"t", "u"}));
  EXPECT_EQ(h.header("x-access-token"), "t");
  EXPECT_EQ(h.header("Upgrade"), std::nullopt);
  EXPECT_EQ(h.lowerCaseHeaders()[0],
            (std::pair<std::string, std::string>{"host", "127.0.0.1:9000"}));
  EXPECT_EQ(parsed("GET / HTTP/1.0\n\n").minor_version, 0);
}

TEST(SdkHttpHead, LeadingEmptyLinesAreIgnored) {
  EXPECT_EQ(parsed("\r\n\r\nGET /health HTTP/1.1\r\n\r\n").target, "/health");
}

TEST(SdkHttpHead, ListsAndKeepAlivePerVersion) {
  auto h = parsed("GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\n\r\n");
  EXPECT_TRUE(h.listHas("connection", "upgrade"));
  EXPECT_FALSE(h.listHas("Connection", "close"));
  EXPECT_FALSE(h.listHas("Upgrade", "websocket"));
  EXPECT_TRUE(parsed("GET / HTTP/1.1\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nConnection: TE, Close\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.0\r\n\r\n").keepAlive());
  EXPECT_TRUE(parsed("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").keepAlive());
}

TEST(SdkHttpHead, RefusesWhatTwoReadersCouldReadTwoWays) {
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n").message,
            "Obsolete line folding is not accepted");
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nHost : a\r\n\r\n").message, "Malformed header field");
  auto two_lengths = refused("GET / HTTP/1.1\r\nContent-Length: 1\r\ncontent-length: 2\r\n\r\n");
  EXPECT_EQ(two_lengths.status, 400);
  EXPECT_EQ(two_lengths.message, "Several Content-Length fields");
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nNoColon\r\n\r\n").status, 400);
  EXPECT_EQ(refused(std::string("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 26)).message,
            "Malformed header value");
}

TEST(SdkHttpHead, RefusesAMalformedRequestLine) {
  EXPECT_EQ(refused("GET /pty\r\n\r\n").message, "Malformed request line");
  EXPECT_EQ(refused("GET  / HTTP/1.1\r\n\r\n").message, "Malformed request line");
  EXPECT_EQ(refused("GET / HTTP/1.1 extra\r\n\r\n").message, "Malformed request line");
  EXPECT_EQ(refused("G(T / HTTP/1.1\r\n\r\n").message, "Malformed request method");
  EXPECT_EQ(refused(std::string("GET /\x01 HTTP/1.1\r\n\r\n")).message, "Malformed request target");
  EXPECT_EQ(refused("GET / FTP/1.0\r\n\r\n").status, 400);
  auto version = refused("GET / HTTP/2.0\r\n\r\n");
  EXPECT_EQ(version.status, 505);
  EXPECT_EQ(version.message, "HTTP version not supported");
}

TEST(SdkHttpHead, Limits) {
  EXPECT_EQ(
      parsed("GET /" + std::string(kMaxRequestTarget - 1, 'a') + " HTTP/1.1\r\n\r\n").target.size(),
      kMaxRequestTarget);
  auto long_target = refused("GET /" + std::string(kMaxRequestTarget, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(long_target.status, 414);
  EXPECT_EQ(long_target.message, "Request target too long");
  std::string fields = "GET / HTTP/1.1\r\n";
  for (std::size_t i = 0; i < kFields; ++i) fields += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(parsed(fields + "\r\n").headers.size(), kFields);
  auto many = refused(fields + "X-more: v\r\n\r\n");
  EXPECT_EQ(many.status, 431);
  EXPECT_EQ(many.message, "Too many header fields");
  // The caller's bound, not a fixed one.
  auto result = parseRequestHead("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n", 1);
  ASSERT_TRUE(std::holds_alternative<HeadError>(result));
  EXPECT_EQ(std::get<HeadError>(result).status, 431);
}

TEST(SdkHttpHead, ReasonPhrases) {
  EXPECT_EQ(reasonPhrase(101), "Switching Protocols");
  EXPECT_EQ(reasonPhrase(200), "OK");
  EXPECT_EQ(reasonPhrase(414), "URI Too Long");
  EXPECT_EQ(reasonPhrase(429), "Too Many Requests");
  EXPECT_EQ(reasonPhrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(reasonPhrase(505), "HTTP Version Not Supported");
  // An unknown code gets its class's phrase.
  EXPECT_EQ(reasonPhrase(299), "OK");
  EXPECT_EQ(reasonPhrase(499), "Bad Request");
  EXPECT_EQ(reasonPhrase(599), "Internal Server Error");
}

TEST(SdkHttpHead, EqualsIgnoreCaseIsAsciiOnly) {
  EXPECT_TRUE(equalsIgnoreCase("WebSocket", "websocket"));
  EXPECT_FALSE(equalsIgnoreCase("websocket", "websockets"));
  EXPECT_FALSE(equalsIgnoreCase("a", "b"));
}

}  // namespace
}  // namespace abx::sdk
