// GET /env and POST /env handlers over a fake ChildEnvironment: exact
// bodies, redaction, and all-or-nothing updates.
#include <gtest/gtest.h>

#include "abx/sdk/testing/fakes.h"
#include "env_routes.h"

namespace abx::plugins::system {
namespace {

using sdk::testing::FakeEnvironment;
using sdk::testing::FakeRedactor;
using sdk::testing::makeRequest;

class EnvRoutes : public ::testing::Test {
 protected:
  EnvRoutes() {
    env.vars = {{"LANG", "C.UTF-8"},
                {"PWD", "/home/user"},
                {"OPENAI_API_KEY", "sk-live"},
                {"QUOTE", "say \"hi\"\n"},
                {"LEAKY", "prefix-hunter2-suffix"}};
    redactor.addSecret("hunter2");
    context.environment = &env;
    context.redactor = &redactor;
    context.host_refuses = [](std::string_view n) { return n.starts_with("ABX_SERVER_"); };
  }
  sdk::Response get(std::string query = {}) {
    auto r = makeRequest("GET", "/env");
    if (!query.empty()) r.query["filter"] = query;
    return getEnv(context, r);
  }
  sdk::Response post(std::string body, const sdk::EndpointPolicy* policy = nullptr) {
    return setEnv(context, makeRequest("POST", "/env", std::move(body), policy));
  }
  FakeEnvironment env;
  FakeRedactor redactor;
  EnvContext context;
};

TEST_F(EnvRoutes, GetListsSortedVariablesWithoutSensitiveNamesAndRedacted) {
  auto r = get();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"variables":{"LANG":"C.UTF-8","LEAKY":"prefix-[REDACTED]-suffix",)"
                    R"("PWD":"/home/user","QUOTE":"say \"hi\"\n"}})");
}

TEST_F(EnvRoutes, GetFilterNeverRevealsSensitiveNames) {
  EXPECT_EQ(get("OPENAI_API_KEY,LANG,ABX_SERVER_TOKEN").body,
            R"({"variables":{"LANG":"C.UTF-8"}})");
  EXPECT_EQ(get("NOPE").body, R"({"variables":{}})");
  EXPECT_EQ(get(",").body, get().body);  // names nothing: no whitelist
}

TEST_F(EnvRoutes, GetHonoursPolicyDenyVars) {
  sdk::EndpointPolicy policy;
  policy.params.set("deny_vars", std::vector<std::string>{"L*"});
  auto r = makeRequest("GET", "/env", {}, &policy);
  EXPECT_EQ(getEnv(context, r).body,
            R"({"variables":{"PWD":"/home/user","QUOTE":"say \"hi\"\n"}})");
}

TEST_F(EnvRoutes, PostSetsEveryVariableAndAnswersSortedNames) {
  auto r = post(R"({"vars":{"ZED":"z","ALPHA":"a","MY_SECRET":"s"}})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"updated":["ALPHA","MY_SECRET","ZED"]})");
  EXPECT_EQ(env.vars["ZED"], "z");
  EXPECT_EQ(env.vars["MY_SECRET"], "s");
  // Set, but never shown.
  EXPECT_EQ(get("MY_SECRET,ALPHA").body, R"({"variables":{"ALPHA":"a"}})");
  EXPECT_EQ(post("").body, R"({"updated":[]})");
}

TEST_F(EnvRoutes, PostIsAllOrNothing) {
  auto before = env.vars;
  auto check = [&](const std::string& body, int status, const std::string& expected) {
    auto r = post(body);
    EXPECT_EQ(r.status, status) << body;
    EXPECT_EQ(r.body, expected) << body;
    EXPECT_EQ(env.vars, before) << body;
    EXPECT_EQ(env.set_calls, 0) << body;
  };
  check(R"({"vars":{"A":"1","PATH":"/evil"}})", 403,
        R"({"error":"Cannot overwrite protected variable(s): PATH","type":"PermissionError",)"
        R"("code":"env_protected"})");
  check(R"({"vars":{"A":"1","ABX_SERVER_BASE_DIR":"/"}})", 403,
        R"({"error":"Cannot overwrite protected variable(s): ABX_SERVER_BASE_DIR",)"
        R"("type":"PermissionError","code":"env_protected"})");
  check(R"({"vars":{"A":"1","LD_PRELOAD":"x","https_proxy":"http://evil"}})", 403,
        R"({"error":"Cannot overwrite protected variable(s): LD_PRELOAD, https_proxy",)"
        R"("type":"PermissionError","code":"env_protected"})");
  check(R"({"vars":{"A":"1","B":2}})", 400,
        R"({"error":"Value of 'B' must be a string","type":"ValueError"})");
  check(R"({"vars":["A"]})", 400, R"({"error":"'vars' must be an object","type":"ValueError"})");
  sdk::EndpointPolicy policy;
  policy.params.set("deny_vars", std::vector<std::string>{"DEBUG_*"});
  auto r = post(R"({"vars":{"A":"1","DEBUG_LEVEL":"x"}})", &policy);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body,
            R"({"error":"Variable(s) not allowed by policy: DEBUG_LEVEL","type":"PermissionError",)"
            R"("code":"env_var_denied"})");
  policy.params.set("env_deny", std::vector<std::string>{"AWS_*"});
  r = post(R"({"vars":{"A":"1","AWS_PROFILE":"x"}})", &policy);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body, R"({"error":"Cannot overwrite protected variable(s): AWS_PROFILE",)"
                    R"("type":"PermissionError","code":"env_protected"})");
  EXPECT_EQ(env.set_calls, 0);
}

TEST_F(EnvRoutes, AHostRefusalAfterValidationRestoresOverwrittenValues) {
  // The host's protected set grew after the check (a policy reload).
  env.refused = {"LATE_TOKEN"};
  auto r = post(R"({"vars":{"LANG":"fr_FR.UTF-8","LATE_TOKEN":"x","ZZ":"z"}})");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.body,
            R"({"error":"Cannot modify protected variable: LATE_TOKEN","type":"PermissionError"})");
  EXPECT_EQ(env.vars["LANG"], "C.UTF-8");
  EXPECT_EQ(env.vars.count("ZZ"), 0u);
}

}  // namespace
}  // namespace abx::plugins::system
