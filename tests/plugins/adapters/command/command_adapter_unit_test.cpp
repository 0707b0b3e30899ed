// Unit: the `runtime: command` adapter's core — invocation building (golden
// argv/env/stdin), the {session_id} resume placeholder, validation — and the
// plugin's ABX_AGENTS_ALLOW_COMMAND switch, without dlopen.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abx/sdk/testing/mock_host_context.h"
#include "command_adapter.h"
#include "command_adapter_plugin.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::AgentSpec;
using sdk::agents::CommandSpec;
using sdk::agents::EnvList;
using sdk::agents::TurnContext;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::ReturnRef;
using ::testing::SizeIs;

AgentSpec commandSpec() {
  AgentSpec spec;
  spec.name = "echoer";
  spec.runtime = "command";
  spec.env = {{"MODE", "fast"}};
  spec.secrets = {{"TOOL_TOKEN", "s3cret-value"}};
  spec.command = CommandSpec{{"fake-agent", "--format", "jsonl-claude"},
                             "jsonl-claude",
                             {"fake-agent", "--resume={session_id}", "--id", "{session_id}"}};
  return spec;
}

TurnContext turnOf(const AgentSpec& spec, std::string prompt) {
  TurnContext turn;
  turn.spec = &spec;
  turn.prompt = std::move(prompt);
  turn.workdir = "/workspace";
  return turn;
}

TEST(CommandAdapter, FirstTurnRunsArgvWithPromptOnStdinAndSpecEnv) {
  CommandAdapter adapter;
  AgentSpec spec = commandSpec();
  spec.extra_args = {"--verbose"};
  auto inv = adapter.buildInvocation(turnOf(spec, "hello"));
  ASSERT_TRUE(inv.isOk()) << inv.status().message();
  EXPECT_THAT(inv->argv, ElementsAre("fake-agent", "--format", "jsonl-claude", "--verbose"));
  EXPECT_EQ(inv->stdin_data, "hello");
  EXPECT_THAT(inv->env, ElementsAre(Pair("MODE", "fast"), Pair("TOOL_TOKEN", "s3cret-value")));
  EXPECT_EQ(inv->cwd, "");
  EXPECT_THAT(inv->files, IsEmpty());
  EXPECT_THAT(adapter.credentialEnv(spec), ElementsAre(Pair("TOOL_TOKEN", "s3cret-value")));
}

TEST(CommandAdapter, ResumedTurnFillsEverySessionPlaceholder) {
  CommandAdapter adapter;
  AgentSpec spec = commandSpec();
  spec.extra_args = {"-x"};
  TurnContext turn = turnOf(spec, "again");
  turn.native_session_id = "abc-123";
  turn.is_first_turn = false;
  auto inv = adapter.buildInvocation(turn);
  ASSERT_TRUE(inv.isOk());
  EXPECT_THAT(inv->argv, ElementsAre("fake-agent", "--resume=abc-123", "--id", "abc-123", "-x"));
}

TEST(CommandAdapter, ResumeWithoutResumeArgvReusesArgv) {
  CommandAdapter adapter;
  AgentSpec spec = commandSpec();
  spec.command->resume_argv.clear();
  TurnContext turn = turnOf(spec, "again");
  turn.native_session_id = "abc-123";
  EXPECT_THAT(adapter.buildInvocation(turn)->argv,
              ElementsAre("fake-agent", "--format", "jsonl-claude"));
  // An empty session id is no session: argv again.
  spec.command->resume_argv = {"other"};
  turn.native_session_id = "";
  EXPECT_THAT(adapter.buildInvocation(turn)->argv,
              ElementsAre("fake-agent", "--format", "jsonl-claude"));
}

TEST(CommandAdapter, ExtraInstructionsPrecedeThePromptAfterABlankLine) {
  CommandAdapter adapter;
  AgentSpec spec = commandSpec();
  TurnContext turn = turnOf(spec, "do it");
  turn.extra_instructions = "Be brief.";
  EXPECT_EQ(adapter.buildInvocation(turn)->stdin_data, "Be brief.\n\ndo it");
}

TEST(CommandAdapter, BuildWithoutCommandBlockFails) {
  CommandAdapter adapter;
  AgentSpec spec;
  spec.runtime = "command";
  auto inv = adapter.buildInvocation(turnOf(spec, "x"));
  ASSERT_FALSE(inv.isOk());
  EXPECT_THAT(inv.status().message(), HasSubstr("'command' block"));
  TurnContext no_spec;
  EXPECT_FALSE(adapter.buildInvocation(no_spec).isOk());
}

TEST(CommandAdapter, ValidateAcceptsAGoodDefinition) {
  EXPECT_THAT(CommandAdapter().validate(commandSpec()), IsEmpty());
}

TEST(CommandAdapter, ValidateNamesEachProblem) {
  CommandAdapter adapter;
  AgentSpec missing;
  EXPECT_THAT(adapter.validate(missing), ElementsAre(HasSubstr("needs a 'command' block")));

  AgentSpec spec = commandSpec();
  spec.command->argv.clear();
  EXPECT_THAT(adapter.validate(spec), ElementsAre(HasSubstr("command.argv must be a non-empty")));

  spec = commandSpec();
  spec.command->parser = "yaml";
  EXPECT_THAT(adapter.validate(spec),
              ElementsAre("command.parser 'yaml' is unknown (known: text, jsonl-codex, "
                          "jsonl-claude)"));

  spec = commandSpec();
  spec.command->argv.push_back("--session={session_id}");
  EXPECT_THAT(adapter.validate(spec), ElementsAre(HasSubstr("must not contain {session_id}")));

  spec = commandSpec();
  spec.command->argv = {""};
  spec.command->parser = "nope";
  EXPECT_THAT(adapter.validate(spec), SizeIs(2));

  spec = commandSpec();
  spec.limits.max_turns = 2;
  EXPECT_THAT(adapter.validate(spec),
              ElementsAre(HasSubstr("limits.max_turns is not supported by the command runtime")));
}

TEST(CommandAdapter, IdentityAndParsers) {
  CommandAdapter adapter;
  EXPECT_EQ(adapter.name(), "command");
  EXPECT_THAT(adapter.aliases(), IsEmpty());
  EXPECT_EQ(adapter.binary(), "");
  EXPECT_THAT(adapter.healthArgv(), IsEmpty());
  EXPECT_TRUE(adapter.capabilities().resume);
  EXPECT_EQ(adapter.promptTransport(), sdk::agents::PromptTransport::stdin_pipe);

  AgentSpec spec = commandSpec();
  auto parser = adapter.newParser(turnOf(spec, "x"));
  ASSERT_NE(parser, nullptr);
  std::vector<sdk::agents::ParsedEvent> out;
  parser->feed(R"({"type":"system","subtype":"init","session_id":"s9"})", out);
  ASSERT_THAT(out, SizeIs(1));
  EXPECT_EQ(out[0].kind, sdk::agents::ParsedKind::session);  // a jsonl-claude parser
}

TEST(CommandAdapter, SubstituteSessionIdHandlesRepeatsAndIdsContainingThePlaceholder) {
  EXPECT_EQ(substituteSessionId("{session_id}/{session_id}", "a"), "a/a");
  EXPECT_EQ(substituteSessionId("x{session_id}", "{session_id}"), "x{session_id}");
  EXPECT_EQ(substituteSessionId("none", "a"), "none");
}

TEST(CommandAdapterPlugin, AllowSwitchDefaultsOn) {
  EXPECT_TRUE(commandRuntimeAllowed(nullptr));
  EXPECT_TRUE(commandRuntimeAllowed("1"));
  EXPECT_TRUE(commandRuntimeAllowed(""));
  EXPECT_FALSE(commandRuntimeAllowed("0"));
  EXPECT_FALSE(commandRuntimeAllowed("False"));
  EXPECT_FALSE(commandRuntimeAllowed("off"));
}

// Records what the plugin provides.
class RecordingServices : public sdk::ServiceRegistry {
 public:
  sdk::Status provideRaw(std::string_view id, std::string_view name, void* p) override {
    provided.emplace_back(std::string(id) + "/" + std::string(name), p);
    return sdk::Status::ok();
  }
  void* findRaw(std::string_view, std::string_view) const override { return nullptr; }
  std::vector<std::pair<std::string, void*>> allRaw(std::string_view) const override {
    return provided;
  }
  std::vector<std::pair<std::string, void*>> provided;
};

class NullLogger : public sdk::Logger {
 public:
  void log(sdk::LogLevel, std::string_view m) override { lines.emplace_back(m); }
  std::vector<std::string> lines;
};

class CommandAdapterPluginStart : public ::testing::Test {
 protected:
  void SetUp() override {
    ON_CALL(host, services()).WillByDefault(ReturnRef(services));
    ON_CALL(host, log()).WillByDefault(ReturnRef(logger));
    ON_CALL(host, settings()).WillByDefault(ReturnRef(settings));
  }
  // What the kernel resolved: `allow` from the manifest or ABX_AGENTS_ALLOW_COMMAND.
  sdk::Settings settings;
  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  RecordingServices services;
  NullLogger logger;
};

TEST_F(CommandAdapterPluginStart, ProvidesTheAdapterAsCommand) {
  CommandAdapterPlugin plugin;
  ASSERT_TRUE(plugin.start(host).isOk());
  EXPECT_TRUE(plugin.provided());
  ASSERT_THAT(services.provided, SizeIs(1));
  EXPECT_EQ(services.provided[0].first, "abx.agent_adapter.v1/command");
  auto* adapter = static_cast<sdk::agents::AgentAdapter*>(services.provided[0].second);
  EXPECT_EQ(adapter->name(), "command");
}

TEST_F(CommandAdapterPluginStart, AllowCommandZeroProvidesNothing) {
  settings.values["allow"] = "0";
  CommandAdapterPlugin plugin;
  ASSERT_TRUE(plugin.start(host).isOk());
  EXPECT_FALSE(plugin.provided());
  EXPECT_THAT(services.provided, IsEmpty());
  EXPECT_THAT(logger.lines, ElementsAre(HasSubstr("ABX_AGENTS_ALLOW_COMMAND=0")));
}

}  // namespace
}  // namespace abx::plugins::adapters
