// prepareLaunch: the body's command (words or an array), cwd through the
// PathGuard, the child environment without env_deny, and the command rules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "abx/sdk/testing/fakes.h"
#include "launch.h"

namespace abx::plugins::process {
namespace {

using ::testing::HasSubstr;

class LaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-launch-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
    std::filesystem::create_directory(dir_ + "/sub");
    std::ofstream(dir_ + "/file.txt") << "x";
    guard_.emplace(dir_);
    env_.vars = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    context_.paths = &*guard_;
    context_.environment = &env_;
    context_.base_dir = "/nonexistent-base";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::variant<Launch, sdk::HttpError> launch(const std::string& body,
                                              const sdk::EndpointPolicy* policy = nullptr) {
    auto request = sdk::testing::makeRequest("POST", "/shell", body, policy, "shell");
    return prepareLaunch(request, context_);
  }
  sdk::HttpError refused(const std::string& body, const sdk::EndpointPolicy* policy = nullptr) {
    auto r = launch(body, policy);
    EXPECT_TRUE(std::holds_alternative<sdk::HttpError>(r)) << body;
    return std::holds_alternative<sdk::HttpError>(r) ? std::get<sdk::HttpError>(r)
                                                     : sdk::HttpError{};
  }

  std::string dir_;
  sdk::testing::FakeEnvironment env_;
  std::optional<sdk::testing::FakePathGuard> guard_;
  LaunchContext context_;
};

TEST_F(LaunchTest, SplitsTheCommandAndDefaultsTheCwdToTheBase) {
  auto r = launch(R"({"command":"echo 'a b' c"})");
  ASSERT_TRUE(std::holds_alternative<Launch>(r));
  const auto& l = std::get<Launch>(r);
  EXPECT_EQ(l.spawn.argv, (std::vector<std::string>{"echo", "a b", "c"}));
  EXPECT_EQ(l.command, "echo 'a b' c");
  EXPECT_EQ(l.spawn.cwd, dir_);
  EXPECT_FALSE(l.spawn.stdin_pipe);
  EXPECT_THAT(l.spawn.env, ::testing::Contains("PATH=/usr/local/bin:/usr/bin:/bin"));
  ASSERT_FALSE(guard_->calls.empty());
  EXPECT_EQ(guard_->calls.back().endpoint, "shell");
  EXPECT_EQ(guard_->calls.back().op, sdk::PathOp::read);
}

TEST_F(LaunchTest, AnArrayIsTheArgvAsIs) {
  auto r = launch(R"({"command":["printf","%s\n","it's $HOME"]})");
  ASSERT_TRUE(std::holds_alternative<Launch>(r));
  const auto& l = std::get<Launch>(r);
  EXPECT_EQ(l.spawn.argv, (std::vector<std::string>{"printf", "%s\n", "it's $HOME"}));
  EXPECT_EQ(l.command, R"(printf '%s
' 'it'\''s $HOME')");
}

TEST_F(LaunchTest, BadCommandsAre400) {
  struct Bad {
    const char* body;
    const char* message;
  };
  for (auto [body, message] : std::initializer_list<Bad>{
           {"{}", "Missing required field 'command'"},
           {R"({"command":null})", "Missing required field 'command'"},
           {R"({"command":42})", "Field 'command' must be a string or an array of strings"},
           {R"({"command":[1,2]})", "Field 'command' must be a string or an array of strings"},
           {R"({"command":""})", "Command is empty"},
           {R"({"command":"   "})", "Command is empty"},
           {R"({"command":[]})", "Command is empty"},
           {R"({"command":"echo 'oops"})", "Invalid command: No closing quotation"},
           {R"({"command":"echo \u0000"})", "Command cannot contain NUL bytes"},
           {R"({"command":"ls","cwd":5})", "Field 'cwd' must be a string"},
           {R"({"command":"ls","cwd":""})", "Field 'cwd' must not be empty"}}) {
    auto refusal = refused(body);
    EXPECT_EQ(refusal.status, 400) << body;
    EXPECT_EQ(refusal.type, "ValueError") << body;
    EXPECT_EQ(refusal.message, message) << body;
  }
}

TEST_F(LaunchTest, CwdGoesThroughTheGuard) {
  auto ok = launch(R"({"command":"pwd","cwd":"sub"})");
  ASSERT_TRUE(std::holds_alternative<Launch>(ok));
  EXPECT_EQ(std::get<Launch>(ok).spawn.cwd, dir_ + "/sub");
  EXPECT_EQ(guard_->calls.back().path, "sub");

  auto outside = refused(R"({"command":"pwd","cwd":"/etc"})");
  EXPECT_EQ(outside.status, 403);
  EXPECT_EQ(outside.code, "path_not_allowed");
  EXPECT_EQ(outside.type, "PermissionError");

  auto missing = refused(R"({"command":"pwd","cwd":"nope"})");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.type, "FileNotFoundError");
  auto file = refused(R"({"command":"pwd","cwd":"file.txt"})");
  EXPECT_EQ(file.status, 400);
  EXPECT_EQ(file.type, "NotADirectoryError");
}

TEST_F(LaunchTest, EnvDenyAndCommandRulesComeFromThePolicy) {
  env_.vars["AWS_SECRET_ACCESS_KEY"] = "s";
  env_.vars["KEEP"] = "1";
  sdk::EndpointPolicy policy;
  policy.params.set("env_deny", std::vector<std::string>{"AWS_*", "PATH"});
  policy.params.set("deny_commands", std::vector<std::string>{"rm"});
  auto r = launch(R"({"command":"env"})", &policy);
  ASSERT_TRUE(std::holds_alternative<Launch>(r));
  const auto& env = std::get<Launch>(r).spawn.env;
  EXPECT_THAT(env, ::testing::Contains("KEEP=1"));
  EXPECT_THAT(env, ::testing::Not(::testing::Contains(HasSubstr("AWS_"))));
  // PATH was denied, so children get the default one.
  EXPECT_THAT(env, ::testing::Contains("PATH=/usr/local/bin:/usr/bin:/bin"));

  auto denied = refused(R"({"command":"rm -rf /"})", &policy);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.code, "command_not_allowed");
}

TEST_F(LaunchTest, WithoutAnAllowedBaseTheHostBaseDirOrTheServerCwdIsUsed) {
  sdk::testing::FakePathGuard elsewhere("/nonexistent-root");
  context_.paths = &elsewhere;
  auto r = launch(R"({"command":"pwd"})");
  ASSERT_TRUE(std::holds_alternative<Launch>(r));
  EXPECT_EQ(std::get<Launch>(r).spawn.cwd, "");  // base_dir does not exist either
  context_.base_dir = dir_;
  r = launch(R"({"command":"pwd"})");
  EXPECT_EQ(std::get<Launch>(r).spawn.cwd, dir_);
}

}  // namespace
}  // namespace abx::plugins::process
