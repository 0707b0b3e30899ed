// The WebSocket handshake's authorization, against a mocked host: token
// headers with pty_connect's scopes, or a ticket for that session, or
// nothing when the server is open; 401 / 403 / 400 / 404 otherwise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abx/sdk/testing/mock_host_context.h"
#include "ws_auth.h"

namespace abx::plugins::terminal {
namespace {

using ::testing::_;
using ::testing::HasSubstr;
using ::testing::Return;
using Headers = std::vector<std::pair<std::string, std::string>>;

const Headers kToken = {{"x-access-token", "tok"}};

class WsAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    policy.scopes = {"terminal:use"};
    policy.rule = "default:terminal";
    ON_CALL(host, endpointPolicy(_)).WillByDefault([this](std::string_view id) {
      return id == "pty_connect" ? std::optional<sdk::EndpointPolicy>(policy) : std::nullopt;
    });
    ON_CALL(host, authenticate(_))
        .WillByDefault([this](const Headers& h) -> sdk::Result<sdk::Identity> {
          if (open) return sdk::Identity{};
          for (const auto& [k, v] : h)
            if (k == "x-access-token" && v == "tok") return caller;
          return sdk::Status::error("unauthorized", "AuthError");
        });
    caller.id = "ops";
    caller.scopes = {"terminal:use"};
  }

  HandshakeVerdict judge(const Headers& headers, std::optional<std::string_view> session,
                         std::optional<std::string_view> ticket) {
    return authorizeHandshake(host, tickets, headers, session, ticket);
  }

  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  sdk::EndpointPolicy policy;
  sdk::Identity caller;
  bool open = false;
  TicketStore tickets;
};

TEST_F(WsAuth, TokenHeaderWithTheScope) {
  auto v = judge(kToken, "abc", std::nullopt);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.caller, "ops");
  EXPECT_FALSE(v.admin);
}

TEST_F(WsAuth, TheVerdictSaysWhetherTheCallerHoldsAdmin) {
  caller.scopes = {"terminal:use", "admin"};
  EXPECT_TRUE(judge(kToken, "abc", std::nullopt).admin);
  caller.scopes = {"*"};
  EXPECT_TRUE(judge(kToken, "abc", std::nullopt).admin);
  caller.scopes = {"terminal:*"};
  EXPECT_FALSE(judge(kToken, "abc", std::nullopt).admin);
  // A ticket never carries admin, whoever it was issued to.
  caller.scopes = {"*"};
  EXPECT_FALSE(judge({}, "abc", tickets.issue("abc", "ops")).admin);
}

TEST_F(WsAuth, NothingPresentedIs401) {
  auto v = judge({}, "abc", std::nullopt);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.status, 401);
  EXPECT_EQ(v.body, R"({"error":"unauthorized","type":"AuthError"})");
  EXPECT_EQ(judge({{"x-access-token", "wrong"}}, "abc", std::nullopt).status, 401);
}

TEST_F(WsAuth, TicketWorksOnceForItsSession) {
  auto ticket = tickets.issue("abc", "web");
  EXPECT_EQ(judge({}, "other", ticket).status, 401);  // wrong session spends it
  ticket = tickets.issue("abc", "web");
  auto v = judge({}, "abc", ticket);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.caller, "web");  // the identity the ticket was issued to
  EXPECT_FALSE(v.admin);
  EXPECT_EQ(judge({}, "abc", ticket).status, 401);
  EXPECT_EQ(judge({}, std::nullopt, tickets.issue("abc", "web")).status, 401);
}

TEST_F(WsAuth, HeadersWinAndLeaveTheTicketUnspent) {
  auto ticket = tickets.issue("abc", "web");
  EXPECT_TRUE(judge(kToken, "abc", ticket).allowed);
  EXPECT_TRUE(judge({}, "abc", ticket).allowed);
}

TEST_F(WsAuth, MissingScopeIs403UnlessATicketVouches) {
  caller.scopes = {"system:read"};
  auto v = judge(kToken, "abc", std::nullopt);
  EXPECT_EQ(v.status, 403);
  EXPECT_THAT(v.body, HasSubstr(R"("code":"missing_scope")"));
  EXPECT_THAT(v.body, HasSubstr(R"("scope":"terminal:use")"));
  EXPECT_TRUE(judge(kToken, "abc", tickets.issue("abc", "web")).allowed);
}

TEST_F(WsAuth, PolicyScopesReplaceTheDefault) {
  policy.scopes = {"terminal:admin"};
  EXPECT_EQ(judge(kToken, "abc", std::nullopt).status, 403);
  caller.scopes = {"terminal:*"};
  EXPECT_TRUE(judge(kToken, "abc", std::nullopt).allowed);
}

TEST_F(WsAuth, OpenServerNeedsNoCredential) {
  open = true;
  auto v = judge({}, "abc", std::nullopt);
  EXPECT_TRUE(v.allowed);
  EXPECT_EQ(v.caller, "anonymous");
  EXPECT_TRUE(v.admin);  // anonymous holds "*"
}

TEST_F(WsAuth, AmbiguousCredentialsAre400) {
  ON_CALL(host, authenticate(_))
      .WillByDefault(Return(sdk::Result<sdk::Identity>(sdk::Status::error(
          "ambiguous credentials: two different X-Access-Token values", "AuthError"))));
  auto v = judge({{"x-access-token", "a"}, {"x-access-token", "b"}}, "abc", std::nullopt);
  EXPECT_EQ(v.status, 400);
  EXPECT_THAT(v.body, HasSubstr("ambiguous_credentials"));
}

TEST_F(WsAuth, DisabledEndpointIs404WithTheRule) {
  policy.enabled = false;
  policy.rule = "policy:endpoints.pty_connect";
  open = true;
  auto v = judge({}, "abc", std::nullopt);
  EXPECT_EQ(v.status, 404);
  EXPECT_THAT(v.body, HasSubstr(R"("code":"endpoint_disabled")"));
  EXPECT_THAT(v.body, HasSubstr(R"("rule":"policy:endpoints.pty_connect")"));
}

}  // namespace
}  // namespace abx::plugins::terminal
