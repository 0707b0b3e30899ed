// The WebSocket handshake's authorization against a mocked host: the
// kernel's admission (HostContext::admit) decides, asked with the token
// headers or, when those are absent or refused, with a ticket for that
// session; the refusal's status, body and headers pass through unchanged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abx/sdk/testing/mock_host_context.h"
#include "ws_auth.h"

namespace abx::plugins::terminal {
namespace {

using ::testing::_;
using ::testing::HasSubstr;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kToken = {{"x-access-token", "tok"}};

sdk::Admission refusal(int status, std::string body) {
  sdk::Admission a;
  a.status = status;
  a.body = std::move(body);
  return a;
}

class WsAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    // A stand-in for the kernel: "tok" is "ops" with terminal:use, a given
    // identity is admitted as it is, anything else is 401.
    ON_CALL(host, admit(_)).WillByDefault([this](const sdk::AdmissionRequest& r) {
      requests.push_back(r);
      sdk::Admission a;
      if (r.identity) {
        a.allowed = true;
        a.identity = *r.identity;
      } else {
        for (const auto& [k, v] : r.headers)
          if (k == "x-access-token" && v == "tok") a.allowed = true;
        if (!a.allowed) return token_refusal;
        a.identity = sdk::Identity{"ops", token_scopes};
      }
      a.status = 101;
      a.lease = std::make_shared<int>(1);
      return a;
    });
  }

  HandshakeVerdict judge(const Headers& headers, std::optional<std::string_view> session,
                         std::optional<std::string_view> ticket) {
    return authorizeHandshake(host, tickets, Handshake{headers, session, ticket, "127.0.0.1"});
  }

  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  std::vector<sdk::AdmissionRequest> requests;
  sdk::Admission token_refusal = refusal(401, R"({"error":"unauthorized","type":"AuthError"})");
  std::vector<std::string> token_scopes{"terminal:use"};
  TicketStore tickets;
};

TEST_F(WsAuth, TokenHeadersAreAdmittedAsPtyConnect) {
  auto v = judge(kToken, "abc", std::nullopt);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.caller, "ops");
  EXPECT_NE(v.lease, nullptr);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].endpoint, "pty_connect");
  EXPECT_EQ(requests[0].path, "/pty");
  EXPECT_EQ(requests[0].local_address, "127.0.0.1");
  EXPECT_FALSE(requests[0].identity);
}

TEST_F(WsAuth, TheVerdictSaysWhetherTheCallerHoldsAdmin) {
  EXPECT_FALSE(judge(kToken, "abc", std::nullopt).admin);
  token_scopes = {"terminal:use", "admin"};
  EXPECT_TRUE(judge(kToken, "abc", std::nullopt).admin);
  token_scopes = {"*"};
  EXPECT_TRUE(judge(kToken, "abc", std::nullopt).admin);
  // A ticket never carries admin, whoever it was issued to.
  EXPECT_FALSE(judge({}, "abc", tickets.issue("abc", "ops")).admin);
}

TEST_F(WsAuth, RefusalPassesThrough) {
  token_refusal = refusal(429, R"({"error":"rate","type":"PolicyError","code":"rate_limited"})");
  token_refusal.headers = {{"Retry-After", "30"}};
  auto v = judge({{"x-access-token", "wrong"}}, "abc", std::nullopt);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.status, 429);
  EXPECT_THAT(v.body, HasSubstr("rate_limited"));
  EXPECT_EQ(v.headers, (Headers{{"Retry-After", "30"}}));
  EXPECT_EQ(judge({}, "abc", std::nullopt).status, 429);
}

TEST_F(WsAuth, TicketWorksOnceForItsSession) {
  auto ticket = tickets.issue("abc", "web");
  EXPECT_EQ(judge({}, "other", ticket).status, 401);  // wrong session spends it
  ticket = tickets.issue("abc", "web");
  auto v = judge({}, "abc", ticket);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.caller, "web");  // the identity the ticket was issued to
  EXPECT_FALSE(v.admin);
  ASSERT_TRUE(requests.back().identity);
  EXPECT_EQ(requests.back().identity->id, "web");
  EXPECT_EQ(judge({}, "abc", ticket).status, 401);
  EXPECT_EQ(judge({}, std::nullopt, tickets.issue("abc", "web")).status, 401);
}

TEST_F(WsAuth, HeadersWinAndLeaveTheTicketUnspent) {
  auto ticket = tickets.issue("abc", "web");
  EXPECT_EQ(judge(kToken, "abc", ticket).caller, "ops");
  EXPECT_EQ(judge({}, "abc", ticket).caller, "web");
}

TEST_F(WsAuth, RefusedTokenFallsBackToTheTicket) {
  EXPECT_TRUE(judge({{"x-access-token", "wrong"}}, "abc", tickets.issue("abc", "web")).allowed);
  token_refusal = refusal(403, R"({"error":"x","type":"PermissionError","code":"missing_scope"})");
  EXPECT_TRUE(judge({{"x-access-token", "wrong"}}, "abc", tickets.issue("abc", "web")).allowed);
}

TEST_F(WsAuth, OtherRefusalsAreNotOverruledByATicket) {
  // A foreign Origin, a disabled endpoint or a rate limit stays refused.
  token_refusal =
      refusal(403, R"({"error":"x","type":"PermissionError","code":"origin_not_allowed"})");
  auto ticket = tickets.issue("abc", "web");
  EXPECT_EQ(judge({{"x-access-token", "wrong"}}, "abc", ticket).status, 403);
  token_refusal = refusal(404, R"({"error":"x","type":"PolicyError","code":"endpoint_disabled"})");
  EXPECT_EQ(judge({{"x-access-token", "wrong"}}, "abc", ticket).status, 404);
}

}  // namespace
}  // namespace abx::plugins::terminal
