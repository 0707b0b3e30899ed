// The dev_tools core without HTTP: what the plugin registers (opt-in group,
// three routes, devtools:run), languages and the policy's `languages`,
// timeouts and caps, the ".." rule, and POST /code/run's handler running
// real python3 / bash / node children (output, exit code, timeout -> 408,
// missing runtime -> 500, stdin for long code, the output cap).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "abx/sdk/testing/fakes.h"
#include "abx/sdk/testing/mock_host_context.h"
#include "code_language.h"
#include "code_run_route.h"
#include "dev_tools_plugin.h"
#include "git_routes.h"
#include "run_budget.h"

namespace abx::plugins::dev_tools {
namespace {

using sdk::testing::makeRequest;
using ::testing::HasSubstr;
using ::testing::ReturnRef;

TEST(DevToolsPluginStart, RegistersAnOptInGroupAndThreeRoutes) {
  sdk::testing::RecordingRoutes routes;
  sdk::testing::FakeEnvironment env;
  sdk::testing::FakePathGuard guard("/nonexistent");
  sdk::HostInfo info;
  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  ON_CALL(host, routes()).WillByDefault(ReturnRef(routes));
  ON_CALL(host, environment()).WillByDefault(ReturnRef(env));
  ON_CALL(host, paths()).WillByDefault(ReturnRef(guard));
  ON_CALL(host, info()).WillByDefault(ReturnRef(info));
  auto plugin = makeDevToolsPlugin(host);
  ASSERT_TRUE(plugin->start(host));
  ASSERT_EQ(routes.groups.size(), 1u);
  EXPECT_EQ(routes.groups[0].name, "dev_tools");
  EXPECT_TRUE(routes.groups[0].opt_in);
  const std::vector<std::tuple<std::string, std::string, std::string>> expected = {
      {"POST", "/code/run", "code_run"},
      {"GET", "/git/status", "git_status"},
      {"GET", "/git/diff", "git_diff"}};
  ASSERT_EQ(routes.routes.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(routes.routes[i].method, std::get<0>(expected[i]));
    EXPECT_EQ(routes.routes[i].path, std::get<1>(expected[i]));
    EXPECT_EQ(routes.routes[i].endpoint, std::get<2>(expected[i]));
    EXPECT_EQ(routes.routes[i].group, "dev_tools");
    EXPECT_EQ(routes.routes[i].scopes, std::vector<std::string>{"devtools:run"});
    EXPECT_TRUE(routes.routes[i].handler);
  }
}

TEST(CodeLanguage, ArgvPerLanguageAndStdinForLongCode) {
  EXPECT_EQ(codeCommand("python", "print(1)")->argv,
            (std::vector<std::string>{"python3", "-c", "print(1)"}));
  EXPECT_EQ(codeCommand("node", "1")->argv, (std::vector<std::string>{"node", "-e", "1"}));
  EXPECT_EQ(codeCommand("bash", "echo")->argv, (std::vector<std::string>{"bash", "-c", "echo"}));
  EXPECT_FALSE(codeCommand("ruby", "1"));
  const std::string long_code(kArgvCodeBytes + 1, '#');
  auto python = codeCommand("python", long_code);
  EXPECT_EQ(python->argv, (std::vector<std::string>{"python3", "-"}));
  EXPECT_EQ(python->stdin_data, long_code);
  EXPECT_EQ(codeCommand("bash", long_code)->argv, (std::vector<std::string>{"bash", "-s"}));
}

TEST(CodeLanguage, UnknownAndPolicyRefused) {
  sdk::Params params;
  auto unknown = checkLanguage("ruby", params);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_THAT(unknown->message, HasSubstr("python, node, bash"));
  EXPECT_FALSE(checkLanguage("node", params));
  params.set("languages", std::vector<std::string>{"python"});
  EXPECT_FALSE(checkLanguage("python", params));
  auto refused = checkLanguage("bash", params);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  EXPECT_EQ(refused->code, "language_not_allowed");
}

TEST(RunBudget, CodeTimeoutDefaultsBodyAndPolicyCeiling) {
  auto body = [](const char* text) { return *sdk::Json::parse(text); };
  using std::chrono::milliseconds;
  EXPECT_EQ(std::get<milliseconds>(codeTimeout(body("{}"), nullptr)), kCodeTimeout);
  EXPECT_EQ(std::get<milliseconds>(codeTimeout(body(R"J({"timeout":2.5})J"), nullptr)),
            milliseconds(2500));
  EXPECT_EQ(std::get<milliseconds>(codeTimeout(body(R"J({"timeout":100000})J"), nullptr)),
            kCodeTimeoutCeiling);
  sdk::EndpointPolicy policy;
  policy.limits.timeout_seconds = 5;
  EXPECT_EQ(std::get<milliseconds>(codeTimeout(body("{}"), &policy)), milliseconds(5000));
  EXPECT_EQ(std::get<milliseconds>(codeTimeout(body(R"J({"timeout":60})J"), &policy)),
            milliseconds(5000));
  EXPECT_TRUE(
      std::holds_alternative<sdk::HttpError>(codeTimeout(body(R"J({"timeout":0})J"), nullptr)));
  EXPECT_TRUE(
      std::holds_alternative<sdk::HttpError>(codeTimeout(body(R"J({"timeout":"1"})J"), nullptr)));
  EXPECT_EQ(timedOutAfter(milliseconds(1500)), "timed out after 1.5 seconds");
}

TEST(RunBudget, DiffMarkerNeverSplitsACharacter) {
  const std::string text =
      "ab\xC3\xA9"
      "cd";  // "abécd"
  EXPECT_EQ(truncateDiff(text, 3), "ab\n... (truncated at 1MB)");
}

TEST(DotDot, OnlyWholeSegments) {
  EXPECT_TRUE(hasDotDotSegment(".."));
  EXPECT_TRUE(hasDotDotSegment("a/../b"));
  EXPECT_TRUE(hasDotDotSegment("a/.."));
  EXPECT_FALSE(hasDotDotSegment("a..b"));
  EXPECT_FALSE(hasDotDotSegment("..."));
}

class CodeRun : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-devtools-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
    guard_ = std::make_unique<sdk::testing::FakePathGuard>(dir_);
    env_.vars["PATH"] = ::getenv("PATH") ? ::getenv("PATH") : "/usr/bin:/bin";
    env_.vars["ABX_DEVTOOLS_MARK"] = "from-env";
    context_.paths = guard_.get();
    context_.environment = &env_;
    context_.base_dir = dir_;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  sdk::Response run(const std::string& body, const sdk::EndpointPolicy* policy = nullptr) {
    return runCode(context_, makeRequest("POST", "/code/run", body, policy, "code_run"));
  }

  std::string dir_;
  std::unique_ptr<sdk::testing::FakePathGuard> guard_;
  sdk::testing::FakeEnvironment env_;
  ToolContext context_;
};

TEST_F(CodeRun, PythonBashAndNodeWithTheChildEnvironment) {
  auto python = run(R"J({"code":"import os,sys; print('hi'); print(os.getcwd()); sys.exit(3)"})J");
  ASSERT_EQ(python.status, 200) << python.body;
  EXPECT_THAT(python.body, HasSubstr(R"("stdout":"hi\n)" + dir_ + R"(\n")"));
  EXPECT_THAT(python.body, HasSubstr(R"("exit_code":3,"language":"python","execution_time_ms":)"));
  auto bash = run(R"J({"language":"bash","code":"echo $ABX_DEVTOOLS_MARK; echo err >&2"})J");
  ASSERT_EQ(bash.status, 200) << bash.body;
  EXPECT_THAT(bash.body, HasSubstr(R"({"stdout":"from-env\n","stderr":"err\n","exit_code":0)"));
  auto node = run(R"J({"language":"node","code":"console.log(6*7)"})J");
  ASSERT_EQ(node.status, 200) << node.body;
  EXPECT_THAT(node.body, HasSubstr(R"("stdout":"42\n")"));
}

TEST_F(CodeRun, LongCodeGoesThroughStdin) {
  std::string code = "x = 1\n";
  while (code.size() <= kArgvCodeBytes + 10) code += "x = x + 1\n";
  code += "print(x)\n";
  auto body = "{\"code\":" + sdk::jsonQuote(code) + "}";
  auto r = run(body);
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  EXPECT_THAT(r.body, HasSubstr(R"("stdout":")"));
  EXPECT_THAT(r.body, HasSubstr(R"("exit_code":0)"));
}

TEST_F(CodeRun, TimeoutIs408AndMissingRuntimeIs500) {
  auto slow = run(R"J({"language":"bash","code":"sleep 5","timeout":0.3})J");
  EXPECT_EQ(slow.status, 408);
  EXPECT_THAT(slow.body, HasSubstr(R"("type":"TimeoutError")"));
  env_.vars["PATH"] = dir_;  // nothing to run in there
  auto missing = run(R"J({"code":"print(1)"})J");
  EXPECT_EQ(missing.status, 500);
  EXPECT_THAT(missing.body, HasSubstr(R"("type":"FileNotFoundError")"));
  EXPECT_THAT(missing.body, HasSubstr("python3"));
}

TEST_F(CodeRun, BadBodiesAndPolicy) {
  EXPECT_EQ(run("{}").status, 400);
  EXPECT_EQ(run(R"J({"code":1})J").status, 400);
  EXPECT_EQ(run(R"J({"code":"1","language":"ruby"})J").status, 400);
  EXPECT_EQ(run(R"J({"code":"1","timeout":-1})J").status, 400);
  EXPECT_EQ(run(R"J({"code":"1","cwd":"../x"})J").status, 400);
  auto outside = run(R"J({"code":"1","cwd":"/etc"})J");
  EXPECT_EQ(outside.status, 403);
  EXPECT_THAT(outside.body, HasSubstr("path_not_allowed"));
  EXPECT_EQ(run(R"J({"code":"1","cwd":"missing"})J").status, 400);

  sdk::EndpointPolicy policy;
  policy.params.set("languages", std::vector<std::string>{"bash"});
  EXPECT_EQ(run(R"J({"code":"print(1)"})J", &policy).status, 403);
  EXPECT_EQ(run(R"J({"language":"bash","code":"true"})J", &policy).status, 200);
}

TEST_F(CodeRun, OutputCapFromPolicy) {
  sdk::EndpointPolicy policy;
  policy.limits.max_output_bytes = 100;
  auto r = run(R"J({"code":"print('x' * 100000)"})J", &policy);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("truncated":true)"));
  EXPECT_THAT(r.body, HasSubstr("\"stdout\":\"" + std::string(100, 'x') + "\""));
}

TEST(QueryFlag, TrueFalseAndBad) {
  auto req = makeRequest("GET", "/git/diff");
  EXPECT_FALSE(std::get<bool>(queryFlag(req, "staged")));
  req.query["staged"] = "TRUE";
  EXPECT_TRUE(std::get<bool>(queryFlag(req, "staged")));
  req.query["staged"] = "0";
  EXPECT_FALSE(std::get<bool>(queryFlag(req, "staged")));
  req.query["staged"] = "maybe";
  EXPECT_TRUE(std::holds_alternative<sdk::HttpError>(queryFlag(req, "staged")));
}

}  // namespace
}  // namespace abx::plugins::dev_tools
