// Authenticator tests: constant-time comparison, X-Access-Token and Bearer
// parsing, ambiguity, and the identities of open and token mode.
#include "policy/authenticator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using abx::kernel::ApiError;
using abx::kernel::Authenticator;
using abx::kernel::constantTimeEquals;
using abx::sdk::Identity;
using namespace std::string_view_literals;

const std::string kToken = "tok-123";

/** The identity id, or "<status>:<code>" for a rejection. */
std::string outcome(const Authenticator& auth, std::vector<std::string_view> access,
                    std::optional<std::string_view> authorization = std::nullopt) {
  auto result = auth.authenticate(access, authorization);
  if (auto* id = std::get_if<Identity>(&result)) return id->id;
  const auto& e = std::get<ApiError>(result);
  return std::to_string(e.status) + ":" + (e.code.empty() ? e.message : e.code);
}

TEST(ConstantTimeEquals, Cases) {
  EXPECT_TRUE(constantTimeEquals("", ""));
  EXPECT_TRUE(constantTimeEquals("abc", "abc"));
  EXPECT_FALSE(constantTimeEquals("abc", "abd"));
  EXPECT_FALSE(constantTimeEquals("xbc", "abc"));
  EXPECT_FALSE(constantTimeEquals("ab", "abc"));    // prefix, shorter
  EXPECT_FALSE(constantTimeEquals("abcd", "abc"));  // prefix, longer
  EXPECT_FALSE(constantTimeEquals("", "a"));
  EXPECT_FALSE(constantTimeEquals("a", ""));
  EXPECT_FALSE(constantTimeEquals("ABC", "abc"));
  EXPECT_TRUE(constantTimeEquals("a\0b"sv, "a\0b"sv));
  EXPECT_FALSE(constantTimeEquals("a\0b"sv, "a\0c"sv));
  EXPECT_FALSE(constantTimeEquals("a"sv, "a\0"sv));  // NUL padding is not equality
  EXPECT_FALSE(constantTimeEquals("a\0"sv, "a"sv));
  std::string high = "\xff\x80";
  EXPECT_TRUE(constantTimeEquals(high, "\xff\x80"));
  EXPECT_FALSE(constantTimeEquals(high, "\xff\x81"));
  std::string long_a(4096, 'a'), long_b(4096, 'a');
  EXPECT_TRUE(constantTimeEquals(long_a, long_b));
  long_b.back() = 'b';
  EXPECT_FALSE(constantTimeEquals(long_a, long_b));
}

TEST(Authenticator, OpenModeIsAnonymousWithEveryScope) {
  Authenticator auth(std::nullopt);
  EXPECT_FALSE(auth.enabled());
  EXPECT_EQ(auth.openIdentity().id, "anonymous");
  EXPECT_EQ(auth.openIdentity().scopes, std::vector<std::string>{"*"});
  EXPECT_EQ(outcome(auth, {}), "anonymous");
  // Nothing is checked, not even ambiguity.
  EXPECT_EQ(outcome(auth, {"a", "b"}, "Bearer c"), "anonymous");
}

TEST(Authenticator, EmptyTokenMeansOpenMode) {
  Authenticator auth{std::string()};
  EXPECT_FALSE(auth.enabled());
  EXPECT_EQ(outcome(auth, {}), "anonymous");
}

TEST(Authenticator, TokenIdentityIsLegacyWithStar) {
  Authenticator auth(kToken);
  ASSERT_TRUE(auth.enabled());
  auto result = auth.authenticate({kToken}, std::nullopt);
  ASSERT_TRUE(std::holds_alternative<Identity>(result));
  const auto& id = std::get<Identity>(result);
  EXPECT_EQ(id.id, "legacy");
  EXPECT_EQ(id.scopes, std::vector<std::string>{"*"});
  EXPECT_TRUE(id.hasScope("files:write"));
  // The open identity is still anonymous (used by auth-exempt routes).
  EXPECT_EQ(auth.openIdentity().id, "anonymous");
}

TEST(Authenticator, MissingOrWrongIs401Unauthorized) {
  Authenticator auth(kToken);
  auto result = auth.authenticate({}, std::nullopt);
  ASSERT_TRUE(std::holds_alternative<ApiError>(result));
  const auto& e = std::get<ApiError>(result);
  EXPECT_EQ(e.status, 401);
  EXPECT_EQ(e.message, "unauthorized");
  EXPECT_EQ(e.type, "AuthError");
  EXPECT_EQ(e.code, "");
  EXPECT_EQ(outcome(auth, {"tok-12"}), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {"tok-1234"}), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {"TOK-123"}), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {""}), "401:unauthorized");
}

TEST(Authenticator, BearerParsing) {
  Authenticator auth(kToken);
  EXPECT_EQ(outcome(auth, {}, "Bearer tok-123"), "legacy");
  EXPECT_EQ(outcome(auth, {}, "bearer tok-123"), "legacy");
  EXPECT_EQ(outcome(auth, {}, "BEARER tok-123"), "legacy");
  EXPECT_EQ(outcome(auth, {}, "BeArEr tok-123"), "legacy");
  EXPECT_EQ(outcome(auth, {}, "Bearer    tok-123"), "legacy");
  EXPECT_EQ(outcome(auth, {}, "Bearer tok-123   "), "legacy");

  EXPECT_EQ(outcome(auth, {}, "Bearer"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Bearer "), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Bearertok-123"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Bearer\ttok-123"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Basic tok-123"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Token tok-123"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "tok-123"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Bearer tok-123 extra"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, "Bearer tok-12"), "401:unauthorized");
  EXPECT_EQ(outcome(auth, {}, ""), "401:unauthorized");
}

TEST(Authenticator, AccessTokenDecidesOverAuthorization) {
  Authenticator auth(kToken);
  EXPECT_EQ(outcome(auth, {kToken}, "Bearer sk-openai-key"), "legacy");
  EXPECT_EQ(outcome(auth, {"wrong"}, "Bearer tok-123"), "401:unauthorized");
  // An empty X-Access-Token is still the credential presented.
  EXPECT_EQ(outcome(auth, {""}, "Bearer tok-123"), "401:unauthorized");
}

TEST(Authenticator, TwoDifferentAccessTokensAreAmbiguous) {
  Authenticator auth(kToken);
  auto result = auth.authenticate({kToken, "other"}, std::nullopt);
  ASSERT_TRUE(std::holds_alternative<ApiError>(result));
  const auto& e = std::get<ApiError>(result);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "ambiguous_credentials");
  EXPECT_EQ(e.type, "AuthError");
  EXPECT_EQ(e.message, "ambiguous credentials: two different X-Access-Token values");
  EXPECT_EQ(outcome(auth, {"other", kToken}), "400:ambiguous_credentials");
  EXPECT_EQ(outcome(auth, {kToken, kToken, "x"}), "400:ambiguous_credentials");
  // Ambiguity is reported even if a valid Bearer is also present.
  EXPECT_EQ(outcome(auth, {"a", "b"}, "Bearer tok-123"), "400:ambiguous_credentials");
  // The same value twice is not ambiguous.
  EXPECT_EQ(outcome(auth, {kToken, kToken}), "legacy");
  EXPECT_EQ(outcome(auth, {"x", "x"}), "401:unauthorized");
}

}  // namespace
