// POST /pty/sessions bodies: types and ranges (400), the shell under
// params.shells (403), the environment (host's, TERM, request's, minus
// params.env_deny) and the cwd through the PathGuard.
#include <gtest/gtest.h>

#include <algorithm>

#include "abx/sdk/testing/fakes.h"
#include "session_request.h"

namespace abx::plugins::terminal {
namespace {

sdk::Json json(const std::string& text) {
  auto parsed = sdk::Json::parse(text);
  if (!parsed) throw std::runtime_error(parsed.status().message());
  return *parsed;
}

RequestError parseError(const std::string& body) {
  auto r = parseSessionRequest(json(body));
  if (!std::holds_alternative<RequestError>(r)) throw std::runtime_error("accepted: " + body);
  return std::get<RequestError>(r);
}

bool hasEnv(const sdk::SpawnOptions& o, const std::string& entry) {
  return std::find(o.env.begin(), o.env.end(), entry) != o.env.end();
}
bool hasName(const sdk::SpawnOptions& o, const std::string& name) {
  return std::any_of(o.env.begin(), o.env.end(),
                     [&](const std::string& e) { return e.starts_with(name + "="); });
}

TEST(SessionRequest, DefaultsFromAnEmptyBody) {
  auto r = parseSessionRequest(json("{}"));
  ASSERT_TRUE(std::holds_alternative<SessionRequest>(r));
  const auto& req = std::get<SessionRequest>(r);
  EXPECT_EQ(req.cols, 80);
  EXPECT_EQ(req.rows, 24);
  EXPECT_FALSE(req.shell);
  EXPECT_FALSE(req.cwd);
  EXPECT_TRUE(req.env.empty());
}

TEST(SessionRequest, ReadsEveryField) {
  auto r = parseSessionRequest(json(
      R"({"cols":132,"rows":43,"shell":"/bin/sh","cwd":"/tmp","env":{"FOO":"bar","_X1":""}})"));
  ASSERT_TRUE(std::holds_alternative<SessionRequest>(r));
  const auto& req = std::get<SessionRequest>(r);
  EXPECT_EQ(req.cols, 132);
  EXPECT_EQ(req.rows, 43);
  EXPECT_EQ(req.shell, "/bin/sh");
  EXPECT_EQ(req.cwd, "/tmp");
  EXPECT_EQ(req.env.at("FOO"), "bar");
  EXPECT_EQ(req.env.at("_X1"), "");
}

TEST(SessionRequest, RejectsWrongTypesAndValues) {
  EXPECT_EQ(parseError(R"({"cols":"80"})").message, "Field 'cols' must be an integer");
  EXPECT_EQ(parseError(R"({"rows":24.5})").message, "Field 'rows' must be an integer");
  EXPECT_EQ(parseError(R"({"cols":true})").status, 400);
  EXPECT_EQ(parseError(R"({"cols":0})").message, "Field 'cols' must be between 1 and 1000");
  EXPECT_EQ(parseError(R"({"rows":1001})").status, 400);
  EXPECT_EQ(parseError(R"({"rows":-99999999999999999999})").message,
            "Field 'rows' must be between 1 and 1000");
  EXPECT_EQ(parseError(R"({"shell":5})").message, "Field 'shell' must be a string");
  EXPECT_EQ(parseError(R"({"cwd":["/tmp"]})").message, "Field 'cwd' must be a string");
  EXPECT_EQ(parseError(R"({"env":"FOO=bar"})").message, "Field 'env' must be an object");
  EXPECT_EQ(parseError(R"({"env":{"FOO":1}})").message, "Field 'env.FOO' must be a string");
  EXPECT_EQ(parseError(R"({"env":{"1X":"a"}})").status, 400);
  EXPECT_EQ(parseError(R"({"env":{"A=B":"a"}})").status, 400);
  EXPECT_EQ(parseError(R"({"env":{"A":"x\u0000y"}})").status, 400);
  EXPECT_EQ(parseError(R"({"env":{"A":"x"},"cols":"x"})").type, "ValueError");
}

TEST(SessionRequest, ParseSizeNeedsBoth) {
  auto ok = parseSize(json(R"({"cols":120,"rows":40})"));
  ASSERT_TRUE((std::holds_alternative<std::pair<int, int>>(ok)));
  EXPECT_EQ((std::get<std::pair<int, int>>(ok)), std::make_pair(120, 40));
  auto missing = parseSize(json(R"({"cols":120})"));
  ASSERT_TRUE(std::holds_alternative<RequestError>(missing));
  EXPECT_EQ(std::get<RequestError>(missing).message, "Missing required field 'rows'");
  EXPECT_TRUE(std::holds_alternative<RequestError>(parseSize(json(R"({"cols":"1","rows":2})"))));
}

struct Fixture {
  sdk::testing::FakePathGuard guard{"/tmp"};
  sdk::testing::FakeEnvironment env;
  sdk::Params params;
  SpawnContext context() {
    SpawnContext c;
    c.paths = &guard;
    c.environment = &env;
    c.params = &params;
    c.base_dir = "/nonexistent-base";
    return c;
  }
};

sdk::SpawnOptions build(Fixture& f, const std::string& body) {
  auto req = parseSessionRequest(json(body));
  auto out = buildSpawnOptions(std::get<SessionRequest>(req), f.context());
  if (auto* e = std::get_if<RequestError>(&out)) throw std::runtime_error(e->message);
  return std::get<sdk::SpawnOptions>(out);
}

RequestError buildError(Fixture& f, const std::string& body) {
  auto req = parseSessionRequest(json(body));
  auto out = buildSpawnOptions(std::get<SessionRequest>(req), f.context());
  if (!std::holds_alternative<RequestError>(out)) throw std::runtime_error("accepted: " + body);
  return std::get<RequestError>(out);
}

TEST(SpawnOptions, EnvironmentIsTheHostsPlusTermPlusTheRequest) {
  Fixture f;
  f.env.vars = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/root"}, {"TERM", "dumb"}, {"LANG", "C"}};
  auto o = build(f, R"({"env":{"LANG":"C.UTF-8","FOO":"bar"}})");
  EXPECT_TRUE(hasEnv(o, "PATH=/usr/bin:/bin"));
  EXPECT_TRUE(hasEnv(o, "HOME=/root"));
  EXPECT_TRUE(hasEnv(o, "TERM=xterm-256color"));
  EXPECT_TRUE(hasEnv(o, "LANG=C.UTF-8"));
  EXPECT_TRUE(hasEnv(o, "FOO=bar"));
  EXPECT_FALSE(hasEnv(o, "TERM=dumb"));
  // The request may choose its own TERM.
  EXPECT_TRUE(hasEnv(build(f, R"({"env":{"TERM":"vt100"}})"), "TERM=vt100"));
}

TEST(SpawnOptions, EnvDenyFiltersHostAndRequestNames) {
  Fixture f;
  f.env.vars = {{"PATH", "/usr/bin:/bin"}, {"AWS_SECRET", "s"}, {"KEEP", "1"}};
  f.params.set("env_deny", std::vector<std::string>{"AWS_*", "FOO"});
  auto o = build(f, R"({"env":{"FOO":"x","AWS_KEY":"k","BAR":"y"}})");
  EXPECT_FALSE(hasName(o, "AWS_SECRET"));
  EXPECT_FALSE(hasName(o, "AWS_KEY"));
  EXPECT_FALSE(hasName(o, "FOO"));
  EXPECT_TRUE(hasEnv(o, "KEEP=1"));
  EXPECT_TRUE(hasEnv(o, "BAR=y"));
}

TEST(SpawnOptions, ShellDefaultsToBashThenSh) {
  Fixture f;
  f.env.vars = {{"PATH", "/bin:/usr/bin"}};
  const bool bash = ::access("/bin/bash", X_OK) == 0;
  EXPECT_EQ(build(f, "{}").argv, std::vector<std::string>{bash ? "/bin/bash" : "/bin/sh"});
  EXPECT_EQ(build(f, R"({"shell":"sh"})").argv, std::vector<std::string>{"/bin/sh"});
  EXPECT_EQ(buildError(f, R"({"shell":"/no/such/shell"})").status, 400);
  EXPECT_EQ(buildError(f, R"({"shell":"no-such-shell"})").status, 400);
}

TEST(SpawnOptions, ShellsParamRestrictsTheShell) {
  Fixture f;
  f.env.vars = {{"PATH", "/bin:/usr/bin"}};
  f.params.set("shells", std::vector<std::string>{"/bin/sh"});
  auto denied = buildError(f, R"({"shell":"/bin/bash"})");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.type, "PermissionError");
  EXPECT_EQ(denied.code, "shell_not_allowed");
  // A denied shell is refused whether or not it exists (no existence oracle).
  EXPECT_EQ(buildError(f, R"({"shell":"/no/such/shell"})").status, 403);
  EXPECT_EQ(build(f, R"({"shell":"/bin/sh"})").argv[0], "/bin/sh");
  EXPECT_EQ(build(f, R"({"shell":"sh"})").argv[0], "/bin/sh");  // resolves to an allowed path
  // Without a shell in the request, the default is the first allowed one.
  EXPECT_EQ(build(f, "{}").argv[0], "/bin/sh");
  f.params.set("shells", std::vector<std::string>{"sh"});  // a bare name allows it anywhere
  EXPECT_EQ(build(f, R"({"shell":"/bin/sh"})").argv[0], "/bin/sh");
  f.params.set("shells", std::vector<std::string>{"/opt/none/zsh"});
  auto none = buildError(f, "{}");
  EXPECT_EQ(none.status, 403);
  EXPECT_EQ(none.code, "shell_not_allowed");
}

TEST(SpawnOptions, CwdGoesThroughThePathGuard) {
  Fixture f;
  f.env.vars = {{"PATH", "/usr/bin:/bin"}};
  EXPECT_EQ(build(f, R"({"cwd":"/tmp"})").cwd, "/tmp");
  ASSERT_FALSE(f.guard.calls.empty());
  EXPECT_EQ(f.guard.calls.back().endpoint, "pty_create");
  auto denied = buildError(f, R"({"cwd":"/etc"})");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.code, "path_not_allowed");
  EXPECT_EQ(denied.type, "PermissionError");
  EXPECT_EQ(buildError(f, R"({"cwd":"/tmp/does-not-exist-xyz"})").status, 400);
  // No cwd: the guard's base dir; else the host's base dir, or / when it does not exist.
  EXPECT_EQ(build(f, "{}").cwd, "/tmp");
  f.guard.base = "/nonexistent-root";
  EXPECT_EQ(build(f, "{}").cwd, "/");
}

TEST(SpawnOptions, SizeIsCarried) {
  Fixture f;
  f.env.vars = {{"PATH", "/usr/bin:/bin"}};
  auto o = build(f, R"({"cols":100,"rows":30})");
  ASSERT_TRUE(o.terminal);
  EXPECT_EQ(o.terminal->cols, 100);
  EXPECT_EQ(o.terminal->rows, 30);
}

TEST(SpawnOptions, ProtectedNamesNeverPassWhoeverNamesThem) {
  Fixture f;
  f.env.vars = {{"PATH", "/usr/bin:/bin"}, {"CI_TOKEN", "planted"}};
  f.env.refused = {"CI_TOKEN"};
  auto o = build(f, R"({"env":{"ABX_SERVER_TOKEN":"x","CI_TOKEN":"y","FOO":"bar"}})");
  EXPECT_FALSE(hasName(o, "ABX_SERVER_TOKEN"));
  EXPECT_FALSE(hasName(o, "CI_TOKEN"));
  EXPECT_TRUE(hasEnv(o, "FOO=bar"));
}

}  // namespace
}  // namespace abx::plugins::terminal
