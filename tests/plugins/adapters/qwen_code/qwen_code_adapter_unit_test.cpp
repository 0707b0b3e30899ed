// Unit: QwenCodeAdapter golden invocations — argv, env and the settings file
// for each permission mode × first turn / resume × with / without MCP and
// provider — plus validate(), credentialEnv() and classifyFailure().
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "qwen_code_adapter.h"
#include "qwen_settings_file.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::AgentSpec;
using sdk::agents::EnvList;
using sdk::agents::Invocation;
using sdk::agents::McpServerSpec;
using sdk::agents::Permissions;
using sdk::agents::TurnContext;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;

constexpr const char* kKey = "sk-secret-qwen-key-0001";
constexpr const char* kHeaderSecret = "Bearer mcp-secret-token-42";

AgentSpec baseSpec() {
  AgentSpec spec;
  spec.name = "q";
  spec.runtime = "qwen-code";
  spec.workspace.path = "/workspace";
  return spec;
}

void addProvider(AgentSpec& spec) {
  spec.model = "stub-model";
  spec.provider.base_url = "http://127.0.0.1:18203/v1";
  spec.provider.api_key = kKey;
}

void addMcp(AgentSpec& spec) {
  McpServerSpec docs;
  docs.name = "docs";
  docs.url = "https://mcp.example.com/mcp";
  docs.headers = {{"Authorization", kHeaderSecret, true}};
  McpServerSpec files;
  files.name = "files";
  files.command = "npx";
  files.args = {"-y", "@modelcontextprotocol/server-filesystem", "/workspace"};
  files.allowed_tools = {"read_file"};
  spec.mcp_servers = {docs, files};
}

TurnContext turnFor(const AgentSpec& spec, std::optional<std::string> resume = std::nullopt) {
  TurnContext turn;
  turn.spec = &spec;
  turn.prompt = "Please run the shell command: echo hello-from-tool";
  turn.workdir = spec.workspace.path;
  turn.turn_dir = "/tmp/abx-turn-TEST";
  turn.native_session_id = resume;
  turn.is_first_turn = !resume;
  return turn;
}

Invocation build(const TurnContext& turn) {
  auto built = QwenCodeAdapter().buildInvocation(turn);
  EXPECT_TRUE(built.isOk()) << built.status().message();
  return built ? *built : Invocation{};
}

Poco::JSON::Object::Ptr parse(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

// ---------------------------------------------------------------- goldens

TEST(QwenCodeAdapter, FirstTurnFullAccessNoProviderNoMcp) {
  AgentSpec spec = baseSpec();
  auto inv = build(turnFor(spec));
  EXPECT_THAT(inv.argv,
              ElementsAre("qwen", "--auth-type", "openai", "--output-format", "stream-json",
                          "--include-partial-messages", "--approval-mode", "yolo"));
  ASSERT_TRUE(inv.stdin_data);
  EXPECT_EQ(*inv.stdin_data, "Please run the shell command: echo hello-from-tool");
  EXPECT_EQ(inv.cwd, "");
  EXPECT_THAT(inv.env, ElementsAre(Pair("QWEN_TELEMETRY_ENABLED", "false"),
                                   Pair("QWEN_USAGE_STATISTICS_ENABLED", "false"),
                                   Pair("QWEN_CODE_SYSTEM_DEFAULTS_PATH",
                                        "/tmp/abx-turn-TEST/qwen-settings.json"),
                                   Pair("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")));
  ASSERT_EQ(inv.files.size(), 1u);
  EXPECT_EQ(inv.files[0].relpath, "qwen-settings.json");
  EXPECT_EQ(inv.files[0].mode, 0600u);
  EXPECT_EQ(inv.files[0].content,
            "{\n"
            "  \"general\": {\n"
            "    \"enableAutoUpdate\": false\n"
            "  },\n"
            "  \"privacy\": {\n"
            "    \"usageStatisticsEnabled\": false\n"
            "  },\n"
            "  \"telemetry\": {\n"
            "    \"enabled\": false\n"
            "  }\n"
            "}\n");
  EXPECT_THAT(QwenCodeAdapter().credentialEnv(spec), IsEmpty());
}

TEST(QwenCodeAdapter, ResumeReadOnlyWithProviderInstructionsAndLimits) {
  AgentSpec spec = baseSpec();
  addProvider(spec);
  spec.permissions = Permissions::read_only;
  spec.instructions = "You are careful.";
  spec.limits.max_turns = 7;
  spec.extra_args = {"--debug"};
  auto turn = turnFor(spec, "6f054dbc-73ef-4a08-ab28-fcdee771da5a");
  turn.extra_instructions = "Answer in French.";
  auto inv = build(turn);
  EXPECT_THAT(inv.argv, ElementsAre("qwen", "--auth-type", "openai", "--output-format",
                                    "stream-json", "--include-partial-messages", "--approval-mode",
                                    "plan", "--model=stub-model",
                                    "--append-system-prompt=You are careful.\n\nAnswer in French.",
                                    "--max-session-turns=7",
                                    "--resume=6f054dbc-73ef-4a08-ab28-fcdee771da5a", "--debug"));
  // No yolo warning switch outside yolo.
  EXPECT_THAT(inv.env, Not(Contains(Pair("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1"))));
  EXPECT_THAT(QwenCodeAdapter().credentialEnv(spec),
              ElementsAre(Pair("OPENAI_API_KEY", kKey),
                          Pair("OPENAI_BASE_URL", "http://127.0.0.1:18203/v1"),
                          Pair("OPENAI_MODEL", "stub-model")));
}

TEST(QwenCodeAdapter, WorkspaceWriteWithMcpPutsHeaderValuesInEnvOnly) {
  AgentSpec spec = baseSpec();
  addMcp(spec);
  spec.permissions = Permissions::workspace_write;
  auto turn = turnFor(spec);
  McpServerSpec extra;
  extra.name = "events";
  extra.url = "http://127.0.0.1:7000/sse";
  extra.headers = {{"X-Api-Key", "per-turn-secret-99", true}};
  turn.extra_mcp_servers = {extra};
  auto inv = build(turn);
  EXPECT_THAT(inv.argv, Contains("auto-edit"));
  EXPECT_THAT(inv.env, Contains(Pair("ABX_MCP_0_AUTHORIZATION", kHeaderSecret)));
  EXPECT_THAT(inv.env, Contains(Pair("ABX_MCP_2_X_API_KEY", "per-turn-secret-99")));
  const std::string& file = inv.files.at(0).content;
  EXPECT_THAT(file, Not(HasSubstr("mcp-secret-token")));
  EXPECT_THAT(file, Not(HasSubstr("per-turn-secret")));
  auto servers = parse(file)->getObject("mcpServers");
  ASSERT_TRUE(servers);
  auto docs = servers->getObject("docs");
  EXPECT_EQ(docs->getValue<std::string>("httpUrl"), "https://mcp.example.com/mcp");
  EXPECT_EQ(docs->getObject("headers")->getValue<std::string>("Authorization"),
            "${ABX_MCP_0_AUTHORIZATION}");
  auto files = servers->getObject("files");
  EXPECT_EQ(files->getValue<std::string>("command"), "npx");
  EXPECT_EQ(files->getArray("args")->size(), 3u);
  EXPECT_EQ(files->getArray("includeTools")->getElement<std::string>(0), "read_file");
  // A URL ending in /sse is qwen's SSE transport (url), not Streamable HTTP (httpUrl).
  auto events = servers->getObject("events");
  EXPECT_EQ(events->getValue<std::string>("url"), "http://127.0.0.1:7000/sse");
  EXPECT_FALSE(events->has("httpUrl"));
  // The offline switches are always there.
  EXPECT_FALSE(parse(file)->getObject("telemetry")->getValue<bool>("enabled"));
}

TEST(QwenCodeAdapter, WireApiResponsesSelectsOpenAiResponsesAuth) {
  AgentSpec spec = baseSpec();
  addProvider(spec);
  spec.provider.wire_api = "responses";
  auto inv = build(turnFor(spec));
  EXPECT_EQ(inv.argv.at(2), "openai-responses");
}

// ------------------------------------------- the whole matrix, invariants

using Combo = std::tuple<Permissions, bool /*resume*/, bool /*mcp*/, bool /*provider*/>;

class QwenCodeMatrix : public ::testing::TestWithParam<Combo> {};

TEST_P(QwenCodeMatrix, ArgvEnvAndFilesFollowTheRules) {
  auto [permissions, resume, mcp, provider] = GetParam();
  AgentSpec spec = baseSpec();
  spec.permissions = permissions;
  if (mcp) addMcp(spec);
  if (provider) addProvider(spec);
  auto turn = turnFor(spec, resume ? std::optional<std::string>("sess-1") : std::nullopt);
  auto inv = build(turn);

  std::vector<std::string> expected{"qwen",
                                    "--auth-type",
                                    "openai",
                                    "--output-format",
                                    "stream-json",
                                    "--include-partial-messages",
                                    "--approval-mode",
                                    std::string(qwenApprovalMode(permissions))};
  if (provider) expected.push_back("--model=stub-model");
  if (resume) expected.push_back("--resume=sess-1");
  EXPECT_THAT(inv.argv, ElementsAreArray(expected));

  // No secret on argv or in a file, ever.
  for (const auto& arg : inv.argv) {
    EXPECT_THAT(arg, Not(HasSubstr(kKey)));
    EXPECT_THAT(arg, Not(HasSubstr("mcp-secret-token")));
  }
  ASSERT_EQ(inv.files.size(), 1u);
  EXPECT_THAT(inv.files[0].content, Not(HasSubstr(kKey)));
  EXPECT_THAT(inv.files[0].content, Not(HasSubstr("mcp-secret-token")));
  EXPECT_EQ(parse(inv.files[0].content)->has("mcpServers"), mcp);
  EXPECT_EQ(
      std::count(inv.env.begin(), inv.env.end(),
                 std::pair<std::string, std::string>("ABX_MCP_0_AUTHORIZATION", kHeaderSecret)),
      mcp ? 1 : 0);
  EXPECT_THAT(inv.env, Contains(Pair("QWEN_TELEMETRY_ENABLED", "false")));
  EXPECT_EQ(QwenCodeAdapter().credentialEnv(spec).size(), provider ? 3u : 0u);
}

INSTANTIATE_TEST_SUITE_P(AllModes, QwenCodeMatrix,
                         ::testing::Combine(::testing::Values(Permissions::read_only,
                                                              Permissions::workspace_write,
                                                              Permissions::full_access),
                                            ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Bool()));

// ------------------------------------------------------ the rest of the API

TEST(QwenCodeAdapter, NamesAndCapabilities) {
  QwenCodeAdapter adapter;
  EXPECT_EQ(adapter.name(), "qwen-code");
  EXPECT_THAT(adapter.aliases(), ElementsAre("qwen"));
  EXPECT_EQ(adapter.binary(), "qwen");
  EXPECT_THAT(adapter.healthArgv(), ElementsAre("qwen", "--version"));
  auto caps = adapter.capabilities();
  EXPECT_TRUE(caps.resume && caps.partial_deltas && caps.mcp && caps.system_prompt &&
              caps.base_url && caps.max_turns);
  EXPECT_FALSE(caps.budget);
  EXPECT_FALSE(caps.experimental);
  EXPECT_EQ(adapter.promptTransport(), sdk::agents::PromptTransport::stdin_pipe);
}

TEST(QwenCodeAdapter, ValidateNamesWhatToFix) {
  QwenCodeAdapter adapter;
  EXPECT_THAT(adapter.validate(baseSpec()), IsEmpty());
  AgentSpec spec = baseSpec();
  spec.provider.wire_api = "grpc";
  spec.limits.max_budget_usd = 5;
  spec.limits.max_turns = 0;
  spec.model = "--yolo";
  auto errors = adapter.validate(spec);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THAT(errors[0], HasSubstr("wire_api 'grpc'"));
  EXPECT_THAT(errors[1], HasSubstr("max_budget_usd"));
  EXPECT_THAT(errors[2], HasSubstr("max_turns"));
  EXPECT_THAT(errors[3], HasSubstr("must not start with '-'"));
}

TEST(QwenCodeAdapter, NeedsATurnDirectory) {
  AgentSpec spec = baseSpec();
  auto turn = turnFor(spec);
  turn.turn_dir.clear();
  EXPECT_FALSE(QwenCodeAdapter().buildInvocation(turn).isOk());
}

TEST(QwenCodeAdapter, UnsafeMcpNamesAreAnError) {
  AgentSpec spec = baseSpec();
  auto turn = turnFor(spec);
  McpServerSpec extra;
  extra.name = "events";
  extra.url = "http://127.0.0.1:7000/mcp";
  extra.allowed_tools = {"t,run_shell_command"};
  turn.extra_mcp_servers = {extra};
  auto inv = QwenCodeAdapter().buildInvocation(turn);
  ASSERT_FALSE(inv.isOk());
  EXPECT_THAT(inv.status().message(), HasSubstr("'t,run_shell_command'"));
}

TEST(QwenCodeAdapter, ClassifiesTheRealFailures) {
  QwenCodeAdapter adapter;
  // stderr + the reported error of transcripts/qwen/auth-error.
  auto auth = adapter.classifyFailure(
      1,
      "Ripgrep not available: spawn rg EACCES. Falling back to built-in grep.\n"
      "[API Error: 401 Incorrect API key provided: sk-stub-***. You can find your API key at "
      "https://platform.openai.com/account/api-keys.]");
  EXPECT_EQ(auth.code, "authentication_error");
  auto limited = adapter.classifyFailure(1, "[API Error: 429 Rate limit reached for requests]");
  EXPECT_EQ(limited.code, "rate_limit_exceeded");
  // What qwen 0.24.4 prints for an unknown --resume id (checked against the real CLI).
  auto gone = adapter.classifyFailure(
      1, "No saved session found with title \"11111111-2222-3333-4444-555555555555\".");
  EXPECT_EQ(gone.code, "invalid_request");
  EXPECT_THAT(gone.message, HasSubstr("start a new session"));
  EXPECT_EQ(adapter.classifyFailure(127, "qwen: not found").code, "runtime_not_installed");
}

TEST(QwenSettingsFile, HeaderEnvNamesAreSafeAndDistinct) {
  EXPECT_EQ(mcpHeaderEnvName(0, "Authorization"), "ABX_MCP_0_AUTHORIZATION");
  EXPECT_EQ(mcpHeaderEnvName(3, "x-api.key"), "ABX_MCP_3_X_API_KEY");
  EXPECT_NE(mcpHeaderEnvName(0, "Authorization"), mcpHeaderEnvName(1, "Authorization"));
}

}  // namespace
}  // namespace abx::plugins::adapters
