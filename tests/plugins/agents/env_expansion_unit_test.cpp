// ${VAR} expansion for server-loaded agent files: values, escapes, and the
// rule that an unset variable is an error, never "".
#include <gtest/gtest.h>

#include <map>

#include "definition/env_expansion.h"

namespace abx::plugins::agents {
namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(EnvExpansion, ReplacesPlaceholders) {
  auto r = expandPlaceholders("Bearer ${TOKEN}/${A_1}", fakeEnv({{"TOKEN", "t0k"}, {"A_1", "x"}}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.value, "Bearer t0k/x");
  EXPECT_TRUE(r.had_placeholder);
}

TEST(EnvExpansion, PlainTextHasNoPlaceholder) {
  auto r = expandPlaceholders("cost $5 and {braces}", fakeEnv({}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.value, "cost $5 and {braces}");
  EXPECT_FALSE(r.had_placeholder);
}

TEST(EnvExpansion, DollarDollarBraceIsALiteral) {
  auto r = expandPlaceholders("$${HOME} and ${X}", fakeEnv({{"X", "1"}}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.value, "${HOME} and 1");
  EXPECT_TRUE(r.had_placeholder);
  EXPECT_FALSE(expandPlaceholders("$${HOME}", fakeEnv({})).had_placeholder);
}

TEST(EnvExpansion, UnsetVariableIsAnErrorNamingIt) {
  auto r = expandPlaceholders("${SET}${NOT_SET}", fakeEnv({{"SET", "v"}}));
  EXPECT_EQ(r.error, "environment variable NOT_SET is not set");
}

TEST(EnvExpansion, EmptyValueIsFineWhenSet) {
  auto r = expandPlaceholders("a${EMPTY}b", fakeEnv({{"EMPTY", ""}}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.value, "ab");
}

TEST(EnvExpansion, MalformedPlaceholdersAreErrors) {
  for (const char* text : {"${", "${}", "${1X}", "${A:-b}", "x ${A"}) {
    auto r = expandPlaceholders(text, fakeEnv({{"A", "1"}}));
    EXPECT_NE(r.error.find("malformed placeholder"), std::string::npos) << text;
  }
}

TEST(EnvExpansion, NoLookupMeansEverythingIsUnset) {
  EXPECT_NE(expandPlaceholders("${X}", EnvLookup()).error, "");
}

}  // namespace
}  // namespace abx::plugins::agents
