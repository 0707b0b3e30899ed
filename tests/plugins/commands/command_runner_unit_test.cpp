// Running declarative commands: result mapping (text, json), failures
// (non-zero exit, timeout, output limit, bad JSON), the environment, and
// real runs through sdk::Subprocess.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "abx/sdk/json.h"
#include "abx/sdk/testing/fakes.h"
#include "command_runner.h"

namespace abx::plugins::commands {
namespace {

using sdk::CommandArgs;
using sdk::CommandValue;

DeclarativeCommand command(std::vector<std::string> argv, OutputMode output = OutputMode::text) {
  DeclarativeCommand c;
  c.name = "t";
  c.argv = std::move(argv);
  c.output = output;
  c.timeout = std::chrono::milliseconds(10000);
  return c;
}

sdk::Completed completed(int code, std::string out, std::string err = {}) {
  sdk::Completed c;
  c.exit_code = code;
  c.out = std::move(out);
  c.err = std::move(err);
  return c;
}

TEST(CommandsInterpretRun, TextDropsOneTrailingNewline) {
  auto r = interpretRun(command({"x"}), completed(0, "a\n\n"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "\"a\\n\"");
  EXPECT_EQ(*interpretRun(command({"x"}), completed(0, "")), "\"\"");
  EXPECT_EQ(*interpretRun(command({"x"}), completed(0, "no newline")), "\"no newline\"");
}

TEST(CommandsInterpretRun, JsonIsParsedAndReserialised) {
  auto r = interpretRun(command({"x"}, OutputMode::json), completed(0, " {\"a\": [1, 2]}\n"));
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(*r, "{\"a\":[1,2]}");
}

TEST(CommandsInterpretRun, BadJsonIsValueError) {
  auto r = interpretRun(command({"x"}, OutputMode::json), completed(0, "not json"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "ValueError");
  EXPECT_TRUE(r.status().message().starts_with("Command 't' did not print valid JSON: "))
      << r.status().message();
}

TEST(CommandsInterpretRun, NonZeroExitQuotesTheStderrTail) {
  auto r = interpretRun(command({"x"}), completed(3, "out", "first\nboom\n"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "CommandError");
  EXPECT_EQ(r.status().message(), "Command 't' exited with code 3: first\nboom");
}

TEST(CommandsInterpretRun, NonZeroExitWithoutStderr) {
  auto r = interpretRun(command({"x"}), completed(1, ""));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().message(), "Command 't' exited with code 1");
}

TEST(CommandsInterpretRun, StderrTailIsBounded) {
  std::string err = "HEAD" + std::string(10000, 'x') + "TAIL";
  auto r = interpretRun(command({"x"}), completed(2, "", err));
  ASSERT_FALSE(r);
  const auto& m = r.status().message();
  EXPECT_LE(m.size(), 2048u + 64u);
  EXPECT_TRUE(m.ends_with("xTAIL"));
  EXPECT_EQ(m.find("HEAD"), std::string::npos);
}

TEST(CommandsInterpretRun, TimeoutAndOutputLimit) {
  auto c = command({"x"});
  c.timeout = std::chrono::milliseconds(1500);
  auto timed = completed(-9, "");
  timed.timed_out = true;
  auto r = interpretRun(c, timed);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "TimeoutError");
  EXPECT_EQ(r.status().message(), "Command 't' timed out after 1.5 s");

  auto big = completed(0, "xxxx");
  big.truncated = true;
  c.max_output_bytes = 4;
  auto o = interpretRun(c, big);
  ASSERT_FALSE(o);
  EXPECT_EQ(o.status().type(), "OutputLimitError");
  EXPECT_EQ(o.status().message(), "Command 't' output exceeded max_output_bytes (4)");
}

TEST(CommandsCommandEnv, HostEnvironmentThenDeclaredEnv) {
  ::setenv("ABX_COMMANDS_TEST_LEAK", "secret", 1);  // the server's own: never consulted
  auto c = command({"x"});
  c.env = {{"LANG", "C.UTF-8"}, {"PATH", "/opt/bin"}};
  std::vector<std::string> base{"HOME=/home/user", "PATH=/usr/bin", "SET_BY_POST_ENV=1"};
  EXPECT_EQ(commandEnv(c, base), (std::vector<std::string>{"HOME=/home/user", "PATH=/opt/bin",
                                                           "SET_BY_POST_ENV=1", "LANG=C.UTF-8"}));
  // No PATH in the base: a fixed one, so argv[0] can still be found.
  EXPECT_EQ(commandEnv(command({"x"}), {"HOME=/h"}),
            (std::vector<std::string>{"HOME=/h", "PATH=/usr/local/bin:/usr/bin:/bin"}));
}

TEST(CommandsSpawnOptions, ExpandsArgvAndKeepsCwd) {
  auto c = command({"/bin/echo", "Hello, {name}!"});
  c.cwd = "/tmp";
  auto options = spawnOptions(c, {{"name", CommandValue(std::string("Qoder"))}});
  EXPECT_EQ(options.argv, (std::vector<std::string>{"/bin/echo", "Hello, Qoder!"}));
  EXPECT_EQ(options.cwd, "/tmp");
  EXPECT_FALSE(options.stdin_pipe);
}

// Real processes from here on.

sdk::Result<std::string> runReal(DeclarativeCommand c, const CommandArgs& args = {}) {
  static const auto environment = [] {
    sdk::testing::FakeEnvironment e;
    e.vars = {{"HOME", "/root"}};
    return e;
  }();
  auto spec = toCommandSpec(std::move(c), environment);
  return spec.fn(args);
}

TEST(CommandsRealRun, HostileTextComesBackVerbatimFromEcho) {
  const std::string hostile = "a b; rm -rf / && echo \"pwned\" 'q' $(id) `id` | cat > /tmp/x";
  auto r = runReal(command({"/bin/echo", "{name}"}), {{"name", CommandValue(hostile)}});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(*r, sdk::jsonQuote(hostile));
}

TEST(CommandsRealRun, HelloWorld) {
  auto c = command({"/bin/echo", "Hello, {name}!"});
  auto r = runReal(c, {{"name", CommandValue(std::string("Qoder"))}});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(*r, "\"Hello, Qoder!\"");
}

TEST(CommandsRealRun, ChildSeesOnlyTheDeclaredEnvironment) {
  ::setenv("ABX_COMMANDS_TEST_LEAK", "secret", 1);
  auto c = command({"env"});
  c.env = {{"GREETING", "hi there"}};
  auto r = runReal(c);
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_NE(r->find("GREETING=hi there"), std::string::npos) << *r;
  EXPECT_NE(r->find("PATH=/usr/local/bin:/usr/bin:/bin"), std::string::npos) << *r;
  EXPECT_EQ(r->find("ABX_COMMANDS_TEST_LEAK"), std::string::npos) << *r;
}

TEST(CommandsRealRun, NonZeroExitIsCommandError) {
  auto r = runReal(command({"/bin/sh", "-c", "echo partial; echo oops >&2; exit 3"}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "CommandError");
  EXPECT_EQ(r.status().message(), "Command 't' exited with code 3: oops");
}

TEST(CommandsRealRun, TimeoutIsTimeoutError) {
  auto c = command({"/bin/sleep", "5"});
  c.timeout = std::chrono::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto r = runReal(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().type(), "TimeoutError");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CommandsRealRun, JsonOutput) {
  auto r = runReal(command({"/usr/bin/printf", "{\"n\": %s}", "{n}"}, OutputMode::json),
                   {{"n", CommandValue(std::int64_t{7})}});
  ASSERT_TRUE(r) << r.status().message();
  EXPECT_EQ(*r, "{\"n\":7}");
}

TEST(CommandsRealRun, DashArgumentIsRefusedUnlessDeclared) {
  auto c = command({"/bin/echo", "{v}"});
  auto refused = runReal(c, {{"v", CommandValue(std::string("-n"))}});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.status().type(), "ValueError");
  EXPECT_EQ(refused.status().message(),
            "Argument 'v' of command 't' begins with '-' and would be read as an option; the "
            "commands file must declare allow_dash: true for it");
  EXPECT_EQ(dashArgumentRefusal(c, {{"v", CommandValue(std::string("x"))}}), std::nullopt);
  c.allow_dash = {"v"};
  auto allowed = runReal(c, {{"v", CommandValue(std::string("-e"))}});
  ASSERT_TRUE(allowed) << allowed.status().message();
  EXPECT_EQ(*allowed, "\"\"");  // echo read -e as its option: the author allowed that
}

TEST(CommandsRealRun, MissingProgramKeepsTheSpawnErrorType) {
  auto r = runReal(command({"/nonexistent/program"}));
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.status().message().starts_with("Command 't' could not start: "))
      << r.status().message();
  EXPECT_FALSE(r.status().type().empty());
}

}  // namespace
}  // namespace abx::plugins::commands
