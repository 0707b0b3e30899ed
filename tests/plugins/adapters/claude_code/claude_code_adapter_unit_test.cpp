// Unit: the claude-code adapter's core without dlopen — golden argv, env and
// files for every permission mode x first/resumed turn x with/without
// provider and MCP servers (golden/*.txt), the secret rules, validation,
// failure classification and the plugin's service registration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "abx/sdk/declare_adapter.h"
#include "abx/sdk/testing/mock_host_context.h"
#include "claude_code_adapter.h"
#include "claude_mcp_config.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::AgentSpec;
using sdk::agents::Invocation;
using sdk::agents::McpHeader;
using sdk::agents::McpServerSpec;
using sdk::agents::Permissions;
using sdk::agents::TurnContext;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;
using ::testing::ReturnRef;
using ::testing::SizeIs;

constexpr const char* kApiKey = "sk-ant-golden-key-0001";
constexpr const char* kMcpToken = "Bearer mcp-golden-token-0002";
constexpr const char* kTurnDir = "/tmp/abx-turn-golden";

// The "with provider and MCP" definition: every option the adapter maps.
AgentSpec fullSpec(Permissions permissions) {
  AgentSpec spec;
  spec.name = "reviewer";
  spec.runtime = "claude-code";
  spec.model = "claude-sonnet-4-5";
  spec.instructions = "You are a careful reviewer.";
  spec.provider.base_url = "http://127.0.0.1:8080/v1/";
  spec.provider.api_key = kApiKey;
  spec.permissions = permissions;
  spec.limits.max_turns = 12;
  spec.limits.max_budget_usd = 0.25;
  spec.extra_args = {"--add-dir", "/data"};
  McpServerSpec docs;
  docs.name = "docs";
  docs.url = "https://mcp.example.com/mcp";
  docs.headers = {McpHeader{"Authorization", kMcpToken, true}, McpHeader{"X-Team", "blue", false}};
  docs.allowed_tools = {"search", "fetch"};
  McpServerSpec files;
  files.name = "files";
  files.command = "npx";
  files.args = {"-y", "@modelcontextprotocol/server-filesystem", "/workspace"};
  spec.mcp_servers = {docs, files};
  return spec;
}

AgentSpec plainSpec(Permissions permissions) {
  AgentSpec spec;
  spec.name = "plain";
  spec.runtime = "claude-code";
  spec.permissions = permissions;
  return spec;
}

TurnContext turnOf(const AgentSpec& spec, bool resumed) {
  TurnContext turn;
  turn.spec = &spec;
  turn.prompt = "Please run the shell command: echo hello-from-tool";
  turn.workdir = "/workspace";
  turn.turn_dir = kTurnDir;
  if (resumed) {
    turn.native_session_id = "f3fea605-0a18-412b-926b-67b565ed94ac";
    turn.is_first_turn = false;
  }
  return turn;
}

// One readable text per invocation: what the golden files hold.
std::string render(const Invocation& inv, const sdk::agents::EnvList& credentials) {
  std::ostringstream out;
  out << "argv:\n";
  for (const auto& a : inv.argv) out << "  " << a << "\n";
  out << "stdin: " << inv.stdin_data.value_or("<none>") << "\n";
  out << "cwd: " << inv.cwd << "\n";
  out << "env:\n";
  for (const auto& [k, v] : inv.env) out << "  " << k << "=" << v << "\n";
  out << "credential env:\n";
  for (const auto& [k, v] : credentials) out << "  " << k << "=" << v << "\n";
  for (const auto& f : inv.files)
    out << "file " << f.relpath << " (mode " << std::oct << f.mode << std::dec << "):\n  "
        << f.content << "\n";
  return out.str();
}

std::string goldenPath(const std::string& name) {
  return std::string(ABX_SOURCE_DIR) + "/tests/plugins/adapters/claude_code/golden/" + name +
         ".txt";
}

struct GoldenCase {
  Permissions permissions;
  bool resumed;
  bool full;
  std::string name() const {
    return std::string(sdk::agents::permissionsName(permissions)) +
           (resumed ? "-resume" : "-first") + (full ? "-provider-mcp" : "-plain");
  }
};

class ClaudeCodeGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ClaudeCodeGolden, InvocationMatchesGoldenFile) {
  const auto& c = GetParam();
  ClaudeCodeAdapter adapter(/*as_root=*/true);
  AgentSpec spec = c.full ? fullSpec(c.permissions) : plainSpec(c.permissions);
  ASSERT_THAT(adapter.validate(spec), IsEmpty());
  auto inv = adapter.buildInvocation(turnOf(spec, c.resumed));
  ASSERT_TRUE(inv.isOk()) << inv.status().message();
  const std::string actual = render(*inv, adapter.credentialEnv(spec));

  // ABX_UPDATE_GOLDEN=1 rewrites the file (and still fails, so a rewrite is
  // never mistaken for a pass).
  if (const char* update = std::getenv("ABX_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(goldenPath(c.name()), std::ios::trunc) << actual;
    FAIL() << "golden file rewritten: " << goldenPath(c.name());
  }
  std::ifstream in(goldenPath(c.name()));
  ASSERT_TRUE(in) << "missing golden file " << goldenPath(c.name());
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden " << c.name();

  // Whatever the golden says: no secret on argv or in a file.
  for (const auto& arg : inv->argv) {
    EXPECT_THAT(arg, Not(HasSubstr(kApiKey)));
    EXPECT_THAT(arg, Not(HasSubstr("mcp-golden-token")));
  }
  for (const auto& file : inv->files) {
    EXPECT_THAT(file.content, Not(HasSubstr(kApiKey)));
    EXPECT_THAT(file.content, Not(HasSubstr("mcp-golden-token")));
  }
}

std::vector<GoldenCase> allCases() {
  std::vector<GoldenCase> out;
  for (auto p : {Permissions::read_only, Permissions::workspace_write, Permissions::full_access})
    for (bool resumed : {false, true})
      for (bool full : {false, true}) out.push_back({p, resumed, full});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllModes, ClaudeCodeGolden, ::testing::ValuesIn(allCases()),
                         [](const auto& info) {
                           std::string n = info.param.name();
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(ClaudeCodeAdapter, BypassAsNonRootNeedsNoSandboxFlag) {
  ClaudeCodeAdapter adapter(/*as_root=*/false);
  AgentSpec spec = plainSpec(Permissions::full_access);
  auto inv = adapter.buildInvocation(turnOf(spec, false));
  ASSERT_TRUE(inv.isOk());
  EXPECT_THAT(inv->argv, Contains("bypassPermissions"));
  EXPECT_THAT(inv->env, Not(Contains(Pair("IS_SANDBOX", "1"))));
}

TEST(ClaudeCodeAdapter, DefinitionEnvKeepsItsOwnRetryCount) {
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = plainSpec(Permissions::full_access);
  spec.env = {{"CLAUDE_CODE_MAX_RETRIES", "7"}};
  auto inv = adapter.buildInvocation(turnOf(spec, false));
  ASSERT_TRUE(inv.isOk());
  for (const auto& [k, v] : inv->env) EXPECT_NE(k, "CLAUDE_CODE_MAX_RETRIES");
  // Telemetry switches are not the definition's to turn back on.
  spec.env = {{"DISABLE_TELEMETRY", "0"}};
  inv = adapter.buildInvocation(turnOf(spec, false));
  EXPECT_THAT(inv->env, Contains(Pair("DISABLE_TELEMETRY", "1")));
  EXPECT_THAT(inv->env, Contains(Pair("CLAUDE_CODE_MAX_RETRIES", "2")));
}

TEST(ClaudeCodeAdapter, PerTurnInstructionsRenderTheSystemPromptAfresh) {
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = plainSpec(Permissions::full_access);
  spec.instructions = "Base.";
  TurnContext turn = turnOf(spec, true);
  turn.extra_instructions = "Answer in French.";
  auto inv = adapter.buildInvocation(turn);
  ASSERT_TRUE(inv.isOk());
  auto& argv = inv->argv;
  auto at = std::find(argv.begin(), argv.end(), "--append-system-prompt");
  ASSERT_NE(at, argv.end());
  EXPECT_EQ(*(at + 1), "Base.\n\nAnswer in French.");
  EXPECT_EQ(*(at + 2), "--system-prompt-snapshot");
  EXPECT_EQ(*(at + 3), "off");
  // The prompt itself is untouched on stdin.
  EXPECT_EQ(inv->stdin_data, turn.prompt);
}

TEST(ClaudeCodeAdapter, ReasoningEffortMapsToClaudeLevels) {
  EXPECT_EQ(claudeEffort("minimal"), "low");
  EXPECT_EQ(claudeEffort("high"), "high");
  EXPECT_EQ(claudeEffort("none"), "");
  EXPECT_EQ(claudeEffort(""), "");
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = plainSpec(Permissions::full_access);
  TurnContext turn = turnOf(spec, false);
  turn.reasoning_effort = "medium";
  auto inv = adapter.buildInvocation(turn);
  auto at = std::find(inv->argv.begin(), inv->argv.end(), "--effort");
  ASSERT_NE(at, inv->argv.end());
  EXPECT_EQ(*(at + 1), "medium");
}

TEST(ClaudeCodeAdapter, PerTurnMcpServerReplacesTheDefinitionsOfTheSameName) {
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = fullSpec(Permissions::full_access);
  TurnContext turn = turnOf(spec, false);
  McpServerSpec docs;
  docs.name = "docs";
  docs.url = "http://127.0.0.1:9999/mcp";
  docs.headers = {McpHeader{"Authorization", "Bearer per-turn-secret-3", true}};
  turn.extra_mcp_servers = {docs};
  auto inv = adapter.buildInvocation(turn);
  ASSERT_TRUE(inv.isOk());
  ASSERT_THAT(inv->files, SizeIs(1));
  const auto& json = inv->files[0].content;
  EXPECT_THAT(json, HasSubstr(R"("docs":{"type":"http","url":"http://127.0.0.1:9999/mcp")"));
  EXPECT_THAT(json, Not(HasSubstr("mcp.example.com")));
  EXPECT_THAT(json, Not(HasSubstr("per-turn-secret-3")));
  EXPECT_THAT(inv->env, Contains(Pair("ABX_MCP_DOCS_AUTHORIZATION", "Bearer per-turn-secret-3")));
  // The replaced server's allowed_tools went with it.
  EXPECT_THAT(inv->argv, Not(Contains(HasSubstr("mcp__docs__search"))));
}

// --allowedTools is one comma-separated list: a name with ',' or ' ' in it
// would pre-approve another tool (Bash) for a workspace_write agent.
TEST(ClaudeCodeAdapter, McpNamesThatWouldAddAToolAreAnError) {
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = plainSpec(Permissions::workspace_write);
  for (auto [server, tool] : {std::pair<std::string, std::string>{"m", "t,Bash"},
                              {"m", "t Bash"},
                              {"m", "t(Bash)"},
                              {"m,Bash", "t"},
                              {"m__x", ""},
                              {"", "t"},
                              {std::string(65, 'm'), "t"}}) {
    TurnContext turn = turnOf(spec, false);
    McpServerSpec extra;
    extra.name = server;
    extra.url = "http://127.0.0.1:9/mcp";
    extra.allowed_tools = {tool};
    turn.extra_mcp_servers = {extra};
    auto inv = adapter.buildInvocation(turn);
    ASSERT_FALSE(inv.isOk()) << server << " / " << tool;
    EXPECT_THAT(inv.status().message(), HasSubstr("[A-Za-z0-9_-]{1,64}"));
  }
  TurnContext turn = turnOf(spec, false);
  McpServerSpec fine;
  fine.name = "m-1";
  fine.url = "http://127.0.0.1:9/mcp";
  fine.allowed_tools = {"t_1", "T-2"};
  turn.extra_mcp_servers = {fine};
  auto inv = adapter.buildInvocation(turn);
  ASSERT_TRUE(inv.isOk()) << inv.status().message();
  EXPECT_THAT(inv->argv, Contains("mcp__m-1__t_1,mcp__m-1__T-2"));
}

TEST(ClaudeMcpConfig, CollidingEnvNamesGetASuffix) {
  McpServerSpec a;
  a.name = "my-docs";
  a.url = "http://127.0.0.1:1/mcp";
  a.headers = {McpHeader{"X-Key", "one-secret", true}};
  McpServerSpec b;
  b.name = "my_docs";
  b.url = "http://127.0.0.1:2/mcp";
  b.headers = {McpHeader{"X_Key", "two-secret", true}};
  auto config = claudeMcpConfig({a, b});
  EXPECT_THAT(config.env, ElementsAre(Pair("ABX_MCP_MY_DOCS_X_KEY", "one-secret"),
                                      Pair("ABX_MCP_MY_DOCS_X_KEY_2", "two-secret")));
  EXPECT_THAT(config.json, HasSubstr(R"("X-Key":"${ABX_MCP_MY_DOCS_X_KEY}")"));
  EXPECT_THAT(config.json, HasSubstr(R"("X_Key":"${ABX_MCP_MY_DOCS_X_KEY_2}")"));
  EXPECT_EQ(envNamePart("a.b-c"), "A_B_C");
}

TEST(ClaudeCodeAdapter, BaseUrlDropsTrailingSlashAndV1) {
  EXPECT_EQ(anthropicBaseUrl("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
  EXPECT_EQ(anthropicBaseUrl("http://127.0.0.1:8080/"), "http://127.0.0.1:8080");
  EXPECT_EQ(anthropicBaseUrl("https://gw.example.com/anthropic/v1"),
            "https://gw.example.com/anthropic");
  EXPECT_EQ(anthropicBaseUrl("https://gw.example.com/v1x"), "https://gw.example.com/v1x");
  ClaudeCodeAdapter adapter(true);
  EXPECT_THAT(adapter.credentialEnv(plainSpec(Permissions::full_access)), IsEmpty());
}

TEST(ClaudeCodeAdapter, ValidateNamesWhatToFix) {
  ClaudeCodeAdapter adapter(true);
  AgentSpec spec = fullSpec(Permissions::full_access);
  EXPECT_THAT(adapter.validate(spec), IsEmpty());
  spec.provider.wire_api = "chat";
  spec.provider.base_url = "127.0.0.1:8080";
  spec.model = "--dangerously-skip-permissions";
  spec.limits.max_turns = 0;
  spec.limits.max_budget_usd = 0;
  spec.extra_args = {"--output-format=json", "--resume", "abc", "--add-dir", "/x"};
  McpServerSpec broken;
  broken.name = "broken";
  spec.mcp_servers.push_back(broken);
  auto errors = adapter.validate(spec);
  EXPECT_THAT(errors, Contains(HasSubstr("provider.wire_api is for runtime codex only")));
  EXPECT_THAT(errors, Contains(HasSubstr("provider.base_url must be an http:// or https://")));
  EXPECT_THAT(errors, Contains(HasSubstr("model must not start with '-'")));
  EXPECT_THAT(errors, Contains(HasSubstr("limits.max_turns must be at least 1")));
  EXPECT_THAT(errors, Contains(HasSubstr("limits.max_budget_usd must be greater than 0")));
  EXPECT_THAT(errors,
              Contains(HasSubstr("mcp_servers.broken needs exactly one of url and command")));
  EXPECT_THAT(errors, Contains(HasSubstr("extra_args must not contain --output-format=json")));
  EXPECT_THAT(errors, Contains(HasSubstr("extra_args must not contain --resume")));
  EXPECT_THAT(errors, SizeIs(8));
}

TEST(ClaudeCodeAdapter, DescribesItself) {
  ClaudeCodeAdapter adapter(false);
  EXPECT_EQ(adapter.name(), "claude-code");
  EXPECT_THAT(adapter.aliases(), ElementsAre("claude"));
  EXPECT_EQ(adapter.binary(), "claude");
  EXPECT_THAT(adapter.healthArgv(), ElementsAre("claude", "--version"));
  EXPECT_EQ(adapter.promptTransport(), sdk::agents::PromptTransport::stdin_pipe);
  auto caps = adapter.capabilities();
  EXPECT_TRUE(caps.resume && caps.partial_deltas && caps.mcp && caps.system_prompt &&
              caps.base_url && caps.max_turns && caps.budget);
  EXPECT_FALSE(caps.experimental);
  ASSERT_THAT(adapter.installSteps(), SizeIs(1));
  EXPECT_THAT(adapter.installSteps()[0], Contains("@anthropic-ai/claude-code"));
}

TEST(ClaudeCodeAdapter, ClassifiesRealFailureOutput) {
  ClaudeCodeAdapter adapter(true);
  // What the runtime passes for the auth-error transcript: empty stderr plus
  // the error the parser reported.
  EXPECT_EQ(adapter.classifyFailure(1, "\nInvalid API key · Fix external API key").code,
            "authentication_error");
  // A resume handle Claude no longer has (stderr of a real run); the uuid
  // holds "401", which must not read as an auth failure.
  auto gone = adapter.classifyFailure(
      1, "No conversation found with session ID: 4011a2b3-2222-3333-4444-555555555555\n");
  EXPECT_EQ(gone.code, "invalid_request");
  EXPECT_THAT(gone.message, HasSubstr("4011a2b3-2222-3333-4444-555555555555"));
  EXPECT_THAT(gone.message, HasSubstr("start a new session"));
  auto root = adapter.classifyFailure(
      1,
      "--dangerously-skip-permissions cannot be used with root/sudo privileges for security "
      "reasons\n");
  EXPECT_EQ(root.code, "sandbox_error");
  EXPECT_EQ(adapter.classifyFailure(1, "API Error: 429 rate_limit_error").code,
            "rate_limit_exceeded");
  EXPECT_EQ(adapter.classifyFailure(1, "Prompt is too long").code, "context_length_exceeded");
  EXPECT_EQ(adapter.classifyFailure(127, "").code, "runtime_not_installed");
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

TEST(ClaudeCodeAdapterPlugin, ProvidesTheAdapterAsClaudeCode) {
  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  RecordingServices services;
  ON_CALL(host, services()).WillByDefault(ReturnRef(services));
  sdk::AdapterPlugin<ClaudeCodeAdapter> plugin;  // what ABX_DECLARE_ADAPTER declares
  ASSERT_TRUE(plugin.start(host).isOk());
  ASSERT_THAT(services.provided, SizeIs(1));
  EXPECT_EQ(services.provided[0].first, "abx.agent_adapter.v1/claude-code");
  auto* adapter = static_cast<sdk::agents::AgentAdapter*>(services.provided[0].second);
  EXPECT_EQ(adapter->name(), "claude-code");
}

}  // namespace
}  // namespace abx::plugins::adapters
