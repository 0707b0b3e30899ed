// The GET /env filter rules and the POST /env validation (spec §4.6, §8.3):
// sensitive names, the whitelist, policy allow_vars / deny_vars, and the
// order and wording of every refusal.
#include <gtest/gtest.h>

#include "env_rules.h"

namespace abx::plugins::system {
namespace {

sdk::Json body(std::string_view text) {
  auto parsed = sdk::Json::parse(text);
  EXPECT_TRUE(parsed) << text;
  return parsed ? *parsed : sdk::Json();
}

using Updates = std::vector<std::pair<std::string, std::string>>;
const auto kNoHostRule = [](std::string_view) { return false; };

EnvRefusal refusal(std::string_view text, const sdk::Params& params = {},
                   const std::function<bool(std::string_view)>& host = kNoHostRule) {
  auto result = validateEnvUpdate(body(text), host, params);
  EXPECT_TRUE(std::holds_alternative<EnvRefusal>(result)) << text;
  return std::holds_alternative<EnvRefusal>(result) ? std::get<EnvRefusal>(result) : EnvRefusal{};
}

Updates accepted(std::string_view text, const sdk::Params& params = {}) {
  auto result = validateEnvUpdate(body(text), kNoHostRule, params);
  EXPECT_TRUE(std::holds_alternative<Updates>(result)) << text;
  return std::holds_alternative<Updates>(result) ? std::get<Updates>(result) : Updates{};
}

TEST(EnvRules, SensitiveNamesAnyCaseAnyPosition) {
  for (auto name : {"ABX_SERVER_TOKEN", "GITHUB_TOKEN", "token", "MyTokenValue", "AWS_SECRET",
                    "secret_thing", "API_KEY", "KEYRING", "monkey", "DB_PASSWORD", "passwordless",
                    "GOOGLE_APPLICATION_CREDENTIALS", "credential"})
    EXPECT_TRUE(isSensitiveName(name)) << name;
  for (auto name : {"PATH", "HOME", "LANG", "TOKE", "PASS", "CRED", "K_E_Y", "SECRE_T"})
    EXPECT_FALSE(isSensitiveName(name)) << name;
}

TEST(EnvRules, ProtectedNamesAreExact) {
  for (auto name : {"PATH", "HOME", "USER", "SHELL", "ABX_SERVER_TOKEN"})
    EXPECT_TRUE(isProtectedName(name)) << name;
  for (auto name : {"path", "PATH2", "MYHOME", "ABX_SERVER_TOKEN_X", ""})
    EXPECT_FALSE(isProtectedName(name)) << name;
}

TEST(EnvRules, ValidNames) {
  for (auto name : {"A", "_", "_A1", "lower_case", "X9"}) EXPECT_TRUE(isValidName(name)) << name;
  for (std::string_view name :
       {std::string_view(""), std::string_view("1A"), std::string_view("A-B"),
        std::string_view("A=B"), std::string_view("A B"), std::string_view("\xC3\x84"),
        std::string_view("A\0B", 3)})
    EXPECT_FALSE(isValidName(name)) << name;
}

TEST(EnvRules, FilterIsACommaWhitelistWithSpacesTrimmed) {
  EXPECT_FALSE(parseFilter(std::nullopt));
  EXPECT_FALSE(parseFilter(""));
  EXPECT_FALSE(parseFilter(" , ,"));
  auto names = parseFilter(" LANG, PWD ,,HOME");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, (std::set<std::string, std::less<>>{"HOME", "LANG", "PWD"}));
}

TEST(EnvRules, VisibleVariablesHideSensitiveNamesEvenWhenNamed) {
  std::vector<std::string> entries = {"PWD=/home/user", "LANG=C.UTF-8", "GITHUB_TOKEN=ghp_x",
                                      "MY_api_key=k",   "EMPTY=",       "EQ=a=b",
                                      "=junk",          "NOEQUALS"};
  auto all = visibleVariables(entries, std::nullopt, {});
  EXPECT_EQ(all,
            (Updates{{"EMPTY", ""}, {"EQ", "a=b"}, {"LANG", "C.UTF-8"}, {"PWD", "/home/user"}}));
  auto some = visibleVariables(entries, parseFilter("LANG,GITHUB_TOKEN,MY_api_key,NOPE"), {});
  EXPECT_EQ(some, (Updates{{"LANG", "C.UTF-8"}}));
}

TEST(EnvRules, PolicyDenyAndAllowVarsAreGlobs) {
  sdk::Params params;
  params.set("deny_vars", std::vector<std::string>{"AWS_*"});
  params.set("allow_vars", std::vector<std::string>{"AWS_*", "APP_*", "LANG"});
  EXPECT_FALSE(policyAllows("AWS_REGION", params));
  EXPECT_TRUE(policyAllows("APP_MODE", params));
  EXPECT_TRUE(policyAllows("LANG", params));
  EXPECT_FALSE(policyAllows("PWD", params));
  EXPECT_TRUE(policyAllows("PWD", {}));
  auto shown = visibleVariables({"AWS_REGION=eu", "APP_MODE=dev", "PWD=/"}, std::nullopt, params);
  EXPECT_EQ(shown, (Updates{{"APP_MODE", "dev"}}));
}

TEST(EnvUpdate, AcceptsStringsSortedByName) {
  EXPECT_EQ(accepted(R"({"vars":{"B":"2","A":"1","MY_SECRET":"s","E":""}})"),
            (Updates{{"A", "1"}, {"B", "2"}, {"E", ""}, {"MY_SECRET", "s"}}));
  EXPECT_TRUE(accepted(R"({})").empty());
  EXPECT_TRUE(accepted(R"({"vars":{}})").empty());
}

TEST(EnvUpdate, VarsMustBeAnObject) {
  for (auto text : {R"({"vars":[]})", R"({"vars":"A=1"})", R"({"vars":null})", R"({"vars":1})"}) {
    auto r = refusal(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_EQ(r.message, "'vars' must be an object");
    EXPECT_EQ(r.type, "ValueError");
  }
}

TEST(EnvUpdate, ValuesMustBeStringsAndNamesValid) {
  for (auto text : {R"({"vars":{"A":1}})", R"({"vars":{"A":true}})", R"({"vars":{"A":null}})",
                    R"({"vars":{"A":{"x":"y"}}})", R"({"vars":{"A":["x"]}})"}) {
    auto r = refusal(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_EQ(r.message, "Value of 'A' must be a string");
  }
  auto nul = refusal(R"({"vars":{"A":"x\u0000y"}})");
  EXPECT_EQ(nul.status, 400);
  EXPECT_EQ(nul.message, "Value of 'A' cannot contain NUL bytes");
  for (auto text : {R"({"vars":{"A=B":"x"}})", R"({"vars":{"":"x"}})", R"({"vars":{"1X":"x"}})"}) {
    auto r = refusal(text);
    EXPECT_EQ(r.status, 400) << text;
    EXPECT_EQ(r.message.rfind("Invalid environment variable name", 0), 0u) << r.message;
  }
}

TEST(EnvUpdate, ProtectedAndHostRefusedNamesAre403ListingAllOfThem) {
  auto r = refusal(R"({"vars":{"SHELL":"/bin/zsh","OK":"1","PATH":"/x","ABX_SERVER_TOKEN":"t"}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.type, "PermissionError");
  EXPECT_EQ(r.message, "Cannot overwrite protected variable(s): ABX_SERVER_TOKEN, PATH, SHELL");
  EXPECT_EQ(r.code, "env_protected");

  auto host = [](std::string_view n) { return n.starts_with("ABX_SERVER_") || n == "CI_TOKEN"; };
  auto h = refusal(R"({"vars":{"CI_TOKEN":"x","ABX_SERVER_BASE_DIR":"/","A":"1"}})", {}, host);
  EXPECT_EQ(h.status, 403);
  EXPECT_EQ(h.message, "Cannot overwrite protected variable(s): ABX_SERVER_BASE_DIR, CI_TOKEN");
}

TEST(EnvUpdate, BadInputIsReportedBeforePermissions) {
  auto r = refusal(R"({"vars":{"PATH":"/x","A":1}})");
  EXPECT_EQ(r.status, 400);
}

TEST(EnvUpdate, PolicyDeniedNamesAre403WithACode) {
  sdk::Params params;
  params.set("deny_vars", std::vector<std::string>{"DEBUG_*"});
  auto r = refusal(R"({"vars":{"DEBUG_LEVEL":"9","A":"1"}})", params);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.type, "PermissionError");
  EXPECT_EQ(r.code, "env_var_denied");
  EXPECT_EQ(r.message, "Variable(s) not allowed by policy: DEBUG_LEVEL");
  params.set("allow_vars", std::vector<std::string>{"APP_*"});
  EXPECT_EQ(refusal(R"({"vars":{"A":"1"}})", params).code, "env_var_denied");
  EXPECT_EQ(accepted(R"({"vars":{"APP_X":"1"}})", params), (Updates{{"APP_X", "1"}}));
}

}  // namespace
}  // namespace abx::plugins::system
