// RequestHead: the request line and fields as the event loop hands them to
// a worker — strict where two readers could disagree (folding, spaces
// before colons, two Content-Lengths), and the keep-alive rule of each
// HTTP version.
#include "http/request_head.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace abx::kernel {
namespace {

RequestHead parsed(std::string_view text) {
  auto [head, error] = parseRequestHead(text);
  EXPECT_TRUE(head) << error.message;
  return head ? *head : RequestHead{};
}

HeadError refused(std::string_view text) {
  auto [head, error] = parseRequestHead(text);
  EXPECT_FALSE(head) << text;
  return error;
}

TEST(RequestHead, FindsTheEndOfTheHeadWithEitherLineEnding) {
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n\r\nbody"), 27u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\nHost: a\n\nbody"), 24u);
  EXPECT_EQ(headEnd("GET / HTTP/1.1\r\nHost: a\r\n"), std::string::npos);
  EXPECT_EQ(headEnd(""), std::string::npos);
}

TEST(RequestHead, ParsesLineAndFields) {
  auto h = parsed(
      "POST /v1/responses?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9000\r\n"
      "Content-Length:  12 \r\nX-Access-Token: t\r\n\r\n");
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/v1/responses?x=1");
  EXPECT_EQ(h.minor_version, 1);
  ASSERT_EQ(h.headers.size(), 3u);
  EXPECT_EQ(h.values("content-length"), std::vector<std::string_view>{"12"});
  EXPECT_EQ(h.values("x-access-token"), std::vector<std::string_view>{"t"});
}

TEST(RequestHead, LeadingEmptyLinesAreIgnored) {
  EXPECT_EQ(parsed("\r\n\r\nGET /health HTTP/1.1\r\n\r\n").target, "/health");
}

TEST(RequestHead, KeepAlivePerVersion) {
  EXPECT_TRUE(parsed("GET / HTTP/1.1\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.1\r\nConnection: TE, Close\r\n\r\n").keepAlive());
  EXPECT_FALSE(parsed("GET / HTTP/1.0\r\n\r\n").keepAlive());
  EXPECT_TRUE(parsed("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive());
}

TEST(RequestHead, RefusesWhatTwoReadersCouldReadTwoWays) {
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n").status, 400);  // folding
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nHost : a\r\n\r\n").status, 400);    // space before colon
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").status,
            400);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nNoColon\r\n\r\n").status, 400);
  EXPECT_EQ(refused("GET  / HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(refused("GET / HTTP/1.1 extra\r\n\r\n").status, 400);
  EXPECT_EQ(refused("G(T / HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(refused(std::string("GET /\x01 HTTP/1.1\r\n\r\n")).status, 400);
  EXPECT_EQ(refused("GET / HTTP/2.0\r\n\r\n").status, 505);
  EXPECT_EQ(refused("GET / FTP/1.0\r\n\r\n").status, 400);
}

TEST(RequestHead, Limits) {
  EXPECT_EQ(refused("GET /" + std::string(17 * 1024, 'a') + " HTTP/1.1\r\n\r\n").status, 414);
  std::string many = "GET / HTTP/1.1\r\n";
  for (std::size_t i = 0; i <= kMaxHeaderFields; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_EQ(refused(many + "\r\n").status, 431);
}

}  // namespace
}  // namespace abx::kernel
