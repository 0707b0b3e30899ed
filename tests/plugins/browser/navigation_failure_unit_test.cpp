// How a failed navigation is reported (navigationFailure in
// browser_session.h): a document the interception refused, or a connection
// the proxy refused, is 403 url_not_allowed with the rule; a connection the
// proxy could not make is 502 with what it met instead of Chromium's
// generic SOCKS error; anything else keeps Chromium's error text.
#include <gtest/gtest.h>

#include "browser_session.h"

namespace abx::plugins::browser {
namespace {

UrlVerdict refusal(const std::string& rule) {
  return {403, "refused: " + rule, "url_not_allowed", rule};
}

TEST(NavigationFailure, AGuardRefusedDocumentIsA403WithItsRule) {
  std::vector<RequestGuard::RefusedRequest> refusals = {
      {1, "http://a.test/secret.png", false, refusal("url_deny *.png")},
      {2, "http://a.test/secret", true, refusal("url_deny */secret*")}};
  auto e = navigationFailure("http://a.test/start", "net::ERR_BLOCKED_BY_CLIENT", refusals, {});
  EXPECT_EQ(e.status, 403);
  EXPECT_EQ(e.type, "PermissionError");
  EXPECT_EQ(e.code, "url_not_allowed");
  EXPECT_EQ(e.rule, "url_deny */secret*");
}

TEST(NavigationFailure, AProxyRefusalOfTheUrlsHostIsPreferred) {
  std::vector<SocksProxy::Outcome> outcomes = {
      {1, "other.test", 80, refusal("url_allow")},
      {2, "127.0.0.1", 8080, refusal("block_private_networks")}};
  auto e =
      navigationFailure("http://127.0.0.1:8080/", "net::ERR_SOCKS_CONNECTION_FAILED", {}, outcomes);
  EXPECT_EQ(e.status, 403);
  EXPECT_EQ(e.rule, "block_private_networks");
  auto v6 = navigationFailure("http://[::1]/", "net::ERR_SOCKS_CONNECTION_FAILED", {},
                              {{1, "[::1]", 80, refusal("url_deny ::1")}});
  EXPECT_EQ(v6.rule, "url_deny ::1");
}

TEST(NavigationFailure, AConnectionTheProxyCouldNotMakeIs502WithItsReason) {
  std::vector<SocksProxy::Outcome> outcomes = {
      {1, "127.0.0.1", 9, UrlVerdict{502, "net::ERR_CONNECTION_REFUSED", {}, {}}}};
  auto e =
      navigationFailure("http://127.0.0.1:9/", "net::ERR_SOCKS_CONNECTION_FAILED", {}, outcomes);
  EXPECT_EQ(e.status, 502);
  EXPECT_EQ(e.type, "NavigationError");
  EXPECT_EQ(e.rule, "");
  EXPECT_NE(e.message.find("net::ERR_CONNECTION_REFUSED"), std::string::npos) << e.message;
}

TEST(NavigationFailure, OtherErrorsKeepChromiumsText) {
  auto e = navigationFailure("http://a.test/", "net::ERR_INVALID_RESPONSE", {}, {});
  EXPECT_EQ(e.status, 502);
  EXPECT_NE(e.message.find("net::ERR_INVALID_RESPONSE"), std::string::npos) << e.message;
}

}  // namespace
}  // namespace abx::plugins::browser
