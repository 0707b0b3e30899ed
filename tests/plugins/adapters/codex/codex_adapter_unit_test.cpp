// Unit: the codex adapter's core without dlopen — golden invocations (argv,
// env, stdin, files) for every permission mode × first/resume × with/without
// MCP and provider, compared with codex_invocations.golden; the flags the
// real capture used (transcripts/codex/argv.txt); secrets only in env;
// validation, credentials, capabilities and the plugin's service.
//
// ABX_UPDATE_GOLDEN=1 rewrites the golden file from the current output
// (review the diff before committing it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "abx/sdk/declare_adapter.h"
#include "abx/sdk/testing/mock_host_context.h"
#include "codex_adapter.h"
#include "codex_mcp_config.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::AgentSpec;
using sdk::agents::EnvList;
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

constexpr const char* kThread = "01a22b3b-0e56-7291-825e-36cc1d804451";
constexpr const char* kProviderKey = "sk-golden-provider-key-0001";
constexpr const char* kMcpToken = "golden-mcp-token-0002";

const std::string kGoldenPath =
    std::string(ABX_SOURCE_DIR) + "/tests/plugins/adapters/codex/codex_invocations.golden";

AgentSpec plainSpec(Permissions permissions) {
  AgentSpec spec;
  spec.name = "golden";
  spec.runtime = "codex";
  spec.permissions = permissions;
  spec.workspace.path = "/workspace";
  return spec;
}

// Everything a definition can give codex: model, instructions, a provider,
// a url MCP server with a secret and a plain header, a command MCP server,
// extra_args.
AgentSpec fullSpec(Permissions permissions) {
  AgentSpec spec = plainSpec(permissions);
  spec.model = "gpt-5-codex";
  spec.instructions = "You review code.\nSay \"done\" at the end.";
  spec.provider.base_url = "http://127.0.0.1:8080/v1";
  spec.provider.api_key = kProviderKey;
  McpServerSpec docs;
  docs.name = "docs";
  docs.url = "https://mcp.example.com/mcp";
  docs.headers = {McpHeader{"Authorization", std::string("Bearer ") + kMcpToken, true},
                  McpHeader{"X-Team", "blue", false}};
  McpServerSpec files;
  files.name = "files";
  files.command = "npx";
  files.args = {"-y", "@modelcontextprotocol/server-filesystem", "/workspace"};
  files.allowed_tools = {"read_file", "list_directory"};
  spec.mcp_servers = {docs, files};
  spec.extra_args = {"-c", "model_verbosity=\"low\""};
  return spec;
}

TurnContext turnOf(const AgentSpec& spec, bool resumed) {
  TurnContext turn;
  turn.spec = &spec;
  turn.prompt = resumed ? "Run it once more: echo hello-from-tool"
                        : "Please run the shell command: echo hello-from-tool";
  turn.workdir = spec.workspace.path;
  turn.turn_dir = "/tmp/abx-turn-golden";
  if (resumed) {
    turn.native_session_id = kThread;
    turn.is_first_turn = false;
  }
  return turn;
}

std::string render(const Invocation& inv, const EnvList& credentials) {
  std::ostringstream out;
  out << "argv:\n";
  for (const auto& a : inv.argv) out << "  " << a << "\n";
  out << "stdin: " << (inv.stdin_data ? *inv.stdin_data : std::string("<none>")) << "\n";
  out << "cwd: " << (inv.cwd.empty() ? "<workdir>" : inv.cwd) << "\n";
  out << "env:" << (inv.env.empty() ? " <none>" : "") << "\n";
  for (const auto& [k, v] : inv.env) out << "  " << k << "=" << v << "\n";
  out << "credential env:" << (credentials.empty() ? " <none>" : "") << "\n";
  for (const auto& [k, v] : credentials) out << "  " << k << "=" << v << "\n";
  out << "files:" << (inv.files.empty() ? " <none>" : "") << "\n";
  for (const auto& f : inv.files) out << "  " << f.relpath << " (" << f.mode << ")\n";
  return out.str();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every case of the matrix, rendered in a fixed order.
std::string renderMatrix(std::vector<Invocation>* all = nullptr) {
  std::ostringstream out;
  out << "# Golden codex invocations (tests/plugins/adapters/codex/codex_adapter_unit_test.cpp).\n"
         "# Regenerate with ABX_UPDATE_GOLDEN=1 and review the diff.\n";
  const std::pair<Permissions, const char*> modes[] = {
      {Permissions::read_only, "read_only"},
      {Permissions::workspace_write, "workspace_write"},
      {Permissions::full_access, "full_access"}};
  for (const auto& [permissions, mode] : modes)
    for (bool with_extras : {false, true})
      for (bool resumed : {false, true}) {
        AgentSpec spec = with_extras ? fullSpec(permissions) : plainSpec(permissions);
        auto inv = CodexAdapter().buildInvocation(turnOf(spec, resumed));
        out << "\n== " << mode << " / " << (resumed ? "resume" : "first") << " / "
            << (with_extras ? "mcp+provider+model+instructions+extra_args" : "plain") << " ==\n";
        if (!inv) {
          out << "error: " << inv.status().message() << "\n";
          continue;
        }
        out << render(*inv, CodexAdapter().credentialEnv(spec));
        if (all) all->push_back(*inv);
      }
  return out.str();
}

TEST(CodexAdapterGolden, EveryPermissionModeFirstAndResumeWithAndWithoutExtras) {
  const std::string actual = renderMatrix();
  if (const char* update = std::getenv("ABX_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(kGoldenPath) << actual;
    GTEST_SKIP() << "golden file rewritten: " << kGoldenPath;
  }
  const std::string expected = readFile(kGoldenPath);
  ASSERT_FALSE(expected.empty()) << "missing " << kGoldenPath;
  EXPECT_EQ(actual, expected) << "the codex invocations changed; if intended, run with "
                                 "ABX_UPDATE_GOLDEN=1 and review the golden diff";
}

TEST(CodexAdapterGolden, SecretsOnlyEverInEnv) {
  std::vector<Invocation> all;
  renderMatrix(&all);
  ASSERT_THAT(all, SizeIs(12));
  for (const auto& inv : all) {
    for (const auto& a : inv.argv) {
      EXPECT_THAT(a, Not(HasSubstr(kProviderKey)));
      EXPECT_THAT(a, Not(HasSubstr(kMcpToken)));
    }
    for (const auto& f : inv.files) EXPECT_THAT(f.content, Not(HasSubstr(kMcpToken)));
    EXPECT_THAT(*inv.stdin_data, Not(HasSubstr(kMcpToken)));
  }
  // The key is credentialEnv()'s, the header value the invocation's env.
  AgentSpec spec = fullSpec(Permissions::full_access);
  auto inv = CodexAdapter().buildInvocation(turnOf(spec, false));
  EXPECT_THAT(inv->env, Contains(Pair(mcpHeaderEnvName(0, 0), std::string("Bearer ") + kMcpToken)));
  EXPECT_THAT(CodexAdapter().credentialEnv(spec),
              ElementsAre(Pair(CodexAdapter::kProviderKeyEnv, kProviderKey)));
}

// The capture's offline switches (transcripts/codex/argv.txt), read from the
// real command line rather than retyped, are all in every invocation.
TEST(CodexAdapterGolden, KeepsEveryOfflineSwitchOfTheRealCapture) {
  std::istringstream lines(
      readFile(std::string(ABX_SOURCE_DIR) + "/tests/data/transcripts/codex/argv.txt"));
  std::vector<std::string> capture;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("codex exec --json") == std::string::npos) continue;
    std::istringstream words(line.substr(line.find("codex exec")));
    for (std::string w; words >> w;) capture.push_back(w);
    break;
  }
  ASSERT_FALSE(capture.empty());
  std::vector<std::string> offline;
  for (std::size_t i = 0; i + 1 < capture.size(); ++i) {
    const std::string& value = capture[i + 1];
    const bool quiet = value.starts_with("analytics.") || value.starts_with("feedback.") ||
                       value.starts_with("otel.") || value.starts_with("check_for_update");
    if ((capture[i] == "-c" && quiet) || (capture[i] == "--disable" && value == "plugins"))
      offline.push_back(capture[i] + " " + value);
  }
  ASSERT_THAT(offline, SizeIs(7));
  std::vector<Invocation> all;
  renderMatrix(&all);
  for (const auto& inv : all) {
    std::vector<std::string> pairs;
    for (std::size_t i = 0; i + 1 < inv.argv.size(); ++i)
      pairs.push_back(inv.argv[i] + " " + inv.argv[i + 1]);
    for (const auto& want : offline) {
      // The capture spelled `none` bare; this adapter quotes it ("none"), which
      // TOML reads as the same string.
      std::string quoted = want;
      if (auto eq = quoted.find("=none"); eq != std::string::npos)
        quoted.replace(eq, 5, "=\"none\"");
      EXPECT_THAT(pairs, Contains(quoted)) << want;
    }
    EXPECT_EQ(inv.argv.back(), "-") << "prompt on stdin";
  }
}

TEST(CodexAdapter, ResumePutsTheThreadIdBeforeTheStdinMarkerAndHasNoSandboxFlag) {
  AgentSpec spec = plainSpec(Permissions::read_only);
  auto inv = CodexAdapter().buildInvocation(turnOf(spec, true));
  ASSERT_TRUE(inv.isOk());
  EXPECT_THAT(std::vector<std::string>(inv->argv.begin(), inv->argv.begin() + 3),
              ElementsAre("codex", "exec", "resume"));
  EXPECT_EQ(inv->argv[inv->argv.size() - 2], kThread);
  // `codex exec resume` rejects --sandbox (exit 2); the config key does the same.
  EXPECT_THAT(inv->argv, Not(Contains("--sandbox")));
  EXPECT_THAT(inv->argv, Contains("sandbox_mode=\"read-only\""));
  // An empty native id is no session: a first turn.
  TurnContext turn = turnOf(spec, true);
  turn.native_session_id = "";
  EXPECT_THAT(CodexAdapter().buildInvocation(turn)->argv, Not(Contains("resume")));
}

TEST(CodexAdapter, TurnInstructionsFollowTheDefinitionsAndEffortAndTurnMcpAreAdded) {
  AgentSpec spec = fullSpec(Permissions::workspace_write);
  TurnContext turn = turnOf(spec, false);
  turn.extra_instructions = "Answer in French.";
  turn.reasoning_effort = "high";
  McpServerSpec turn_server;
  turn_server.name = "search";
  turn_server.url = "http://127.0.0.1:7777/mcp";
  turn_server.headers = {McpHeader{"X-Key", "per-turn-secret-3", true}};
  turn.extra_mcp_servers = {turn_server};
  auto inv = CodexAdapter().buildInvocation(turn);
  ASSERT_TRUE(inv.isOk());
  EXPECT_THAT(inv->argv,
              Contains("developer_instructions=\"You review code.\\nSay \\\"done\\\" at the "
                       "end.\\n\\nAnswer in French.\""));
  EXPECT_THAT(inv->argv, Contains("model_reasoning_effort=\"high\""));
  EXPECT_THAT(inv->argv, Contains("mcp_servers.search={\"url\" = \"http://127.0.0.1:7777/mcp\", "
                                  "\"env_http_headers\" = {\"X-Key\" = "
                                  "\"ABX_CODEX_MCP_SECRET_2_0\"}}"));
  EXPECT_THAT(inv->env, Contains(Pair("ABX_CODEX_MCP_SECRET_2_0", "per-turn-secret-3")));
  for (const auto& a : inv->argv) EXPECT_THAT(a, Not(HasSubstr("per-turn-secret-3")));

  // Only the turn's instructions when the definition has none.
  AgentSpec plain = plainSpec(Permissions::full_access);
  TurnContext only_turn = turnOf(plain, false);
  only_turn.extra_instructions = "Be brief.";
  EXPECT_THAT(CodexAdapter().buildInvocation(only_turn)->argv,
              Contains("developer_instructions=\"Be brief.\""));
}

TEST(CodexAdapter, ProviderWithoutKeyHasNoEnvKey) {
  AgentSpec spec = plainSpec(Permissions::full_access);
  spec.provider.base_url = "http://127.0.0.1:9/v1";
  auto inv = CodexAdapter().buildInvocation(turnOf(spec, false));
  EXPECT_THAT(inv->argv, Contains("model_providers.abx.wire_api=\"responses\""));
  for (const auto& a : inv->argv) EXPECT_THAT(a, Not(HasSubstr("env_key")));
  EXPECT_THAT(CodexAdapter().credentialEnv(spec), IsEmpty());
}

TEST(CodexAdapter, ProviderKeyAndHeaderVariablesAreHiddenFromToolShells) {
  // codex 0.169 passes its whole env to tool shells (checked with the real
  // CLI: `env` in a tool call listed ABX_CODEX_PROVIDER_API_KEY until
  // shell_environment_policy.exclude named it).
  AgentSpec spec = fullSpec(Permissions::full_access);
  EXPECT_THAT(CodexAdapter().buildInvocation(turnOf(spec, false))->argv,
              Contains("shell_environment_policy.exclude=[\"ABX_CODEX_*\"]"));
  AgentSpec direct = plainSpec(Permissions::full_access);
  direct.provider.api_key = "sk-direct";
  EXPECT_THAT(CodexAdapter().buildInvocation(turnOf(direct, true))->argv,
              Contains("shell_environment_policy.exclude=[\"ABX_CODEX_*\", \"OPENAI_API_KEY\", "
                       "\"CODEX_API_KEY\"]"));
}

// Every variable the adapter puts into codex's environment for a credential
// or an MCP header is hidden from codex's tool shells by both rules: the
// adapter's shell_environment_policy.exclude and codex's own default
// exclusion of names containing KEY, SECRET or TOKEN (any case).
TEST(CodexAdapter, EveryCredentialAndHeaderVariableMatchesBothExclusions) {
  AgentSpec spec = fullSpec(Permissions::full_access);
  TurnContext turn = turnOf(spec, false);
  McpServerSpec turn_server;
  turn_server.name = "search";
  turn_server.url = "http://127.0.0.1:7777/mcp";
  turn_server.headers = {McpHeader{"Cookie", "per-turn-cookie-4", true}};
  turn.extra_mcp_servers = {turn_server};
  auto inv = CodexAdapter().buildInvocation(turn);
  ASSERT_TRUE(inv.isOk());
  EnvList added = inv->env;
  for (const auto& entry : CodexAdapter().credentialEnv(spec)) added.push_back(entry);
  AgentSpec direct = plainSpec(Permissions::full_access);
  direct.provider.api_key = "sk-direct";
  for (const auto& entry : CodexAdapter().credentialEnv(direct)) added.push_back(entry);
  ASSERT_THAT(added, SizeIs(6));  // 3 headers, the abx provider key, OPENAI_/CODEX_API_KEY
  auto codexDefaultExcludes = [](std::string name) {
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name.find("KEY") != std::string::npos || name.find("SECRET") != std::string::npos ||
           name.find("TOKEN") != std::string::npos;
  };
  for (const auto& [name, value] : added) {
    EXPECT_TRUE(codexDefaultExcludes(name)) << name;
    EXPECT_TRUE(name.starts_with("ABX_CODEX_") || name == "OPENAI_API_KEY" ||
                name == "CODEX_API_KEY")
        << name;
  }
  EXPECT_THAT(inv->env, Contains(Pair("ABX_CODEX_MCP_SECRET_2_0", "per-turn-cookie-4")));
}

// A tool name joins a list and a server name a dotted TOML key: both follow
// [A-Za-z0-9_-]{1,64} (mcp_names.h) whatever the wire let through.
TEST(CodexAdapter, BadTurnMcpToolNameIsAnError) {
  AgentSpec spec = plainSpec(Permissions::full_access);
  TurnContext turn = turnOf(spec, false);
  McpServerSpec bad;
  bad.name = "m";
  bad.url = "http://127.0.0.1:1/mcp";
  bad.allowed_tools = {"ok", "t,Bash"};
  turn.extra_mcp_servers = {bad};
  auto inv = CodexAdapter().buildInvocation(turn);
  ASSERT_FALSE(inv.isOk());
  EXPECT_THAT(inv.status().message(), HasSubstr("'t,Bash'"));
}

TEST(CodexAdapter, BadTurnMcpServerNameIsAnError) {
  AgentSpec spec = plainSpec(Permissions::full_access);
  TurnContext turn = turnOf(spec, false);
  McpServerSpec bad;
  bad.name = "a.b";  // would become a nested TOML key
  bad.url = "http://127.0.0.1:1/mcp";
  turn.extra_mcp_servers = {bad};
  auto inv = CodexAdapter().buildInvocation(turn);
  ASSERT_FALSE(inv.isOk());
  EXPECT_THAT(inv.status().message(), HasSubstr("'a.b'"));
  TurnContext no_spec;
  EXPECT_FALSE(CodexAdapter().buildInvocation(no_spec).isOk());
}

TEST(CodexAdapter, CredentialEnvFollowsTheProvider) {
  AgentSpec spec = plainSpec(Permissions::full_access);
  EXPECT_THAT(CodexAdapter().credentialEnv(spec), IsEmpty());
  spec.provider.api_key = "sk-openai-direct";
  EXPECT_THAT(CodexAdapter().credentialEnv(spec),
              ElementsAre(Pair("OPENAI_API_KEY", "sk-openai-direct"),
                          Pair("CODEX_API_KEY", "sk-openai-direct")));
  spec.provider.base_url = "http://127.0.0.1:1/v1";
  EXPECT_THAT(CodexAdapter().credentialEnv(spec),
              ElementsAre(Pair("ABX_CODEX_PROVIDER_API_KEY", "sk-openai-direct")));
}

TEST(CodexAdapter, ValidateNamesWhatTheUserCanFix) {
  CodexAdapter adapter;
  EXPECT_THAT(adapter.validate(fullSpec(Permissions::read_only)), IsEmpty());

  AgentSpec chat = fullSpec(Permissions::full_access);
  chat.provider.wire_api = "chat";
  EXPECT_THAT(adapter.validate(chat), ElementsAre(HasSubstr("use 'responses'")));

  AgentSpec no_url = plainSpec(Permissions::full_access);
  no_url.provider.wire_api = "responses";
  EXPECT_THAT(adapter.validate(no_url),
              ElementsAre(HasSubstr("only together with provider.base_url")));

  AgentSpec headers_on_command = plainSpec(Permissions::full_access);
  McpServerSpec s;
  s.name = "local";
  s.command = "mcp-server";
  s.headers = {McpHeader{"Authorization", "x", true}};
  headers_on_command.mcp_servers = {s};
  EXPECT_THAT(adapter.validate(headers_on_command),
              ElementsAre(HasSubstr("mcp_servers.local.headers")));

  // codex has no turn switch: a limit it would ignore is refused.
  AgentSpec turns = plainSpec(Permissions::full_access);
  turns.limits.max_turns = 5;
  EXPECT_THAT(adapter.validate(turns),
              ElementsAre("limits.max_turns is not supported by codex (it has no turn limit); "
                          "remove it"));
}

TEST(CodexAdapter, IdentityAndCapabilities) {
  CodexAdapter adapter;
  EXPECT_EQ(adapter.name(), "codex");
  EXPECT_EQ(adapter.binary(), "codex");
  EXPECT_THAT(adapter.healthArgv(), ElementsAre("codex", "--version"));
  EXPECT_EQ(adapter.promptTransport(), sdk::agents::PromptTransport::stdin_pipe);
  const auto caps = adapter.capabilities();
  EXPECT_TRUE(caps.resume);
  EXPECT_FALSE(caps.partial_deltas);
  EXPECT_TRUE(caps.mcp);
  EXPECT_TRUE(caps.system_prompt);
  EXPECT_TRUE(caps.base_url);
  EXPECT_FALSE(caps.max_turns);
  EXPECT_FALSE(caps.budget);
  EXPECT_FALSE(caps.experimental);
  EXPECT_THAT(adapter.installSteps(),
              ElementsAre(ElementsAre("npm", "install", "-g", "@openai/codex@0.169.0")));
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

TEST(CodexAdapterPlugin, ProvidesTheAdapterAsCodex) {
  ::testing::NiceMock<sdk::testing::MockHostContext> host;
  RecordingServices services;
  ON_CALL(host, services()).WillByDefault(ReturnRef(services));
  sdk::AdapterPlugin<CodexAdapter> plugin;  // what ABX_DECLARE_ADAPTER declares
  ASSERT_TRUE(plugin.start(host).isOk());
  ASSERT_THAT(services.provided, SizeIs(1));
  EXPECT_EQ(services.provided[0].first, "abx.agent_adapter.v1/codex");
  auto* adapter = static_cast<sdk::agents::AgentAdapter*>(services.provided[0].second);
  EXPECT_EQ(adapter->name(), "codex");
}

}  // namespace
}  // namespace abx::plugins::adapters
