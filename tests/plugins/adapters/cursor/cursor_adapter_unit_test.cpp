// Unit: CursorAdapter golden invocations — argv (prompt last), env and the
// project MCP file for each permission mode × first turn / resume × with /
// without MCP and provider — and the <workdir>/.cursor/mcp.json merge rules.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "cursor_adapter.h"
#include "cursor_mcp_file.h"

namespace abx::plugins::adapters {
namespace {

namespace fs = std::filesystem;
using sdk::agents::AgentSpec;
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

constexpr const char* kKey = "cursor-secret-key-0001";
constexpr const char* kHeaderSecret = "Bearer mcp-secret-token-42";
constexpr const char* kPrompt = "Please run the shell command: echo hello-from-tool";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

Poco::JSON::Object::Ptr parse(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

class CursorAdapterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-cursor-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  AgentSpec spec() const {
    AgentSpec s;
    s.name = "c";
    s.runtime = "cursor";
    s.workspace.path = dir_;
    return s;
  }
  static void addMcp(AgentSpec& s) {
    McpServerSpec docs;
    docs.name = "docs";
    docs.url = "https://mcp.example.com/mcp";
    docs.headers = {{"Authorization", kHeaderSecret, true}};
    McpServerSpec files;
    files.name = "files";
    files.command = "npx";
    files.args = {"-y", "server-filesystem"};
    s.mcp_servers = {docs, files};
  }
  TurnContext turn(const AgentSpec& s, std::optional<std::string> resume = std::nullopt) const {
    TurnContext t;
    t.spec = &s;
    t.prompt = kPrompt;
    t.workdir = dir_;
    t.turn_dir = dir_ + "/turn";
    t.native_session_id = resume;
    return t;
  }
  Invocation build(const TurnContext& t) const {
    auto built = CursorAdapter().buildInvocation(t);
    EXPECT_TRUE(built.isOk()) << built.status().message();
    return built ? *built : Invocation{};
  }
  fs::path mcpFile() const { return fs::path(dir_) / ".cursor" / "mcp.json"; }

  std::string dir_;
};

// ---------------------------------------------------------------- goldens

TEST_F(CursorAdapterTest, FirstTurnFullAccessPromptLastNoFiles) {
  AgentSpec s = spec();
  auto inv = build(turn(s));
  EXPECT_THAT(inv.argv,
              ElementsAre("cursor-agent", "-p", "--output-format", "stream-json",
                          "--stream-partial-output", "--trust", "--force", "--", kPrompt));
  EXPECT_FALSE(inv.stdin_data);  // cursor-agent cannot read stdin
  EXPECT_THAT(inv.env, IsEmpty());
  EXPECT_THAT(inv.files, IsEmpty());
  EXPECT_FALSE(fs::exists(fs::path(dir_) / ".cursor"));  // no MCP: the workspace is untouched
}

TEST_F(CursorAdapterTest, ResumeReadOnlyWithModelInstructionsAndProviderKey) {
  AgentSpec s = spec();
  s.permissions = Permissions::read_only;
  s.model = "gpt-5";
  s.instructions = "Be careful.";
  s.provider.api_key = kKey;
  s.extra_args = {"--sandbox", "enabled"};
  auto t = turn(s, "chat-1234");
  t.extra_instructions = "Answer briefly.";
  auto inv = build(t);
  EXPECT_THAT(
      inv.argv,
      ElementsAre("cursor-agent", "-p", "--output-format", "stream-json", "--stream-partial-output",
                  "--trust", "--mode", "plan", "--model=gpt-5", "--resume=chat-1234", "--sandbox",
                  "enabled", "--", std::string("Be careful.\n\nAnswer briefly.\n\n") + kPrompt));
  EXPECT_THAT(CursorAdapter().credentialEnv(s), ElementsAre(Pair("CURSOR_API_KEY", kKey)));
}

TEST_F(CursorAdapterTest, WorkspaceWriteWithMcpWritesPlaceholdersAndEnv) {
  AgentSpec s = spec();
  s.permissions = Permissions::workspace_write;
  addMcp(s);
  auto inv = build(turn(s));
  EXPECT_THAT(inv.argv,
              ElementsAre("cursor-agent", "-p", "--output-format", "stream-json",
                          "--stream-partial-output", "--trust", "--approve-mcps", "--", kPrompt));
  EXPECT_THAT(inv.env, ElementsAre(Pair("ABX_MCP_0_AUTHORIZATION", kHeaderSecret)));
  const std::string text = slurp(mcpFile());
  EXPECT_THAT(text, Not(HasSubstr("mcp-secret-token")));
  auto servers = parse(text)->getObject("mcpServers");
  EXPECT_EQ(servers->getObject("docs")->getValue<std::string>("url"),
            "https://mcp.example.com/mcp");
  EXPECT_EQ(
      servers->getObject("docs")->getObject("headers")->getValue<std::string>("Authorization"),
      "${env:ABX_MCP_0_AUTHORIZATION}");
  EXPECT_EQ(servers->getObject("files")->getValue<std::string>("command"), "npx");
  struct stat st {};
  ASSERT_EQ(::stat(mcpFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

using Combo = std::tuple<Permissions, bool /*resume*/, bool /*mcp*/, bool /*provider*/>;

class CursorMatrix : public CursorAdapterTest, public ::testing::WithParamInterface<Combo> {};

TEST_P(CursorMatrix, ArgvEnvAndFilesFollowTheRules) {
  auto [permissions, resume, mcp, provider] = GetParam();
  AgentSpec s = spec();
  s.permissions = permissions;
  if (mcp) addMcp(s);
  if (provider) s.provider.api_key = kKey;
  auto inv = build(turn(s, resume ? std::optional<std::string>("chat-9") : std::nullopt));
  std::vector<std::string> expected{
      "cursor-agent", "-p", "--output-format", "stream-json", "--stream-partial-output", "--trust"};
  if (permissions == Permissions::read_only) expected.insert(expected.end(), {"--mode", "plan"});
  if (permissions == Permissions::full_access) expected.push_back("--force");
  if (mcp) expected.push_back("--approve-mcps");
  if (resume) expected.push_back("--resume=chat-9");
  expected.insert(expected.end(), {"--", kPrompt});
  EXPECT_THAT(inv.argv, ElementsAreArray(expected));
  for (const auto& arg : inv.argv) {
    EXPECT_THAT(arg, Not(HasSubstr(kKey)));
    EXPECT_THAT(arg, Not(HasSubstr("mcp-secret-token")));
  }
  EXPECT_EQ(fs::exists(mcpFile()), mcp);
  if (mcp) {
    EXPECT_THAT(slurp(mcpFile()), Not(HasSubstr("mcp-secret-token")));
  }
  EXPECT_EQ(inv.env.size(), mcp ? 1u : 0u);
  EXPECT_EQ(CursorAdapter().credentialEnv(s).size(), provider ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(AllModes, CursorMatrix,
                         ::testing::Combine(::testing::Values(Permissions::read_only,
                                                              Permissions::workspace_write,
                                                              Permissions::full_access),
                                            ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Bool()));

// ------------------------------------------------------ the merge rules

TEST_F(CursorAdapterTest, MergeKeepsOtherKeysAndOtherServers) {
  spit(mcpFile(), R"({"theme":"dark","mcpServers":{"mine":{"url":"https://mine.example/mcp"},)"
                  R"("docs":{"url":"https://old.example/mcp"}}})");
  AgentSpec s = spec();
  addMcp(s);
  build(turn(s));
  auto root = parse(slurp(mcpFile()));
  EXPECT_EQ(root->getValue<std::string>("theme"), "dark");
  auto servers = root->getObject("mcpServers");
  EXPECT_EQ(servers->getObject("mine")->getValue<std::string>("url"), "https://mine.example/mcp");
  // A server of the same name is the definition's now.
  EXPECT_EQ(servers->getObject("docs")->getValue<std::string>("url"),
            "https://mcp.example.com/mcp");
  EXPECT_TRUE(servers->has("files"));
}

TEST_F(CursorAdapterTest, AFileWithoutMcpServersGetsTheKeyAdded) {
  spit(mcpFile(), "/* a block comment */ {\"editor\": {\"tabSize\": 2}}\n");
  AgentSpec s = spec();
  addMcp(s);
  build(turn(s));
  auto root = parse(slurp(mcpFile()));
  EXPECT_EQ(root->getObject("editor")->getValue<int>("tabSize"), 2);
  EXPECT_EQ(root->getObject("mcpServers")->size(), 2u);
}

TEST_F(CursorAdapterTest, AnUnmergeableFileIsNeverOverwritten) {
  // (POCO reads /* */ comments but not //: such a file is left alone too.)
  for (const std::string bad :
       {"{not json", "[1, 2]", R"({"mcpServers": [1]})", "// note\n{\"a\": 1}"}) {
    spit(mcpFile(), bad);
    AgentSpec s = spec();
    addMcp(s);
    auto built = CursorAdapter().buildInvocation(turn(s));
    ASSERT_FALSE(built.isOk()) << bad;
    EXPECT_THAT(built.status().message(), HasSubstr("not overwriting"));
    EXPECT_EQ(slurp(mcpFile()), bad);
  }
}

TEST_F(CursorAdapterTest, SymlinksAreNotFollowed) {
  const fs::path target = fs::path(dir_) / "elsewhere.json";
  spit(target, R"({"keep":"me"})");
  fs::create_directories(fs::path(dir_) / ".cursor");
  fs::create_symlink(target, mcpFile());
  AgentSpec s = spec();
  addMcp(s);
  EXPECT_FALSE(CursorAdapter().buildInvocation(turn(s)).isOk());
  EXPECT_EQ(slurp(target), R"({"keep":"me"})");

  fs::remove_all(fs::path(dir_) / ".cursor");
  fs::create_directories(fs::path(dir_) / "real-dir");
  fs::create_directory_symlink(fs::path(dir_) / "real-dir", fs::path(dir_) / ".cursor");
  EXPECT_FALSE(CursorAdapter().buildInvocation(turn(s)).isOk());
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "real-dir" / "mcp.json"));
}

TEST_F(CursorAdapterTest, GitRepositoriesExcludeTheFileOnce) {
  spit(fs::path(dir_) / ".git" / "info" / "exclude", "# git ls-files --others\n*.log");
  AgentSpec s = spec();
  addMcp(s);
  build(turn(s));
  build(turn(s, "chat-2"));
  EXPECT_EQ(slurp(fs::path(dir_) / ".git" / "info" / "exclude"),
            "# git ls-files --others\n*.log\n/.cursor/mcp.json\n");
}

TEST_F(CursorAdapterTest, AGitDirectoryWithoutInfoGetsOne) {
  fs::create_directories(fs::path(dir_) / ".git");
  AgentSpec s = spec();
  addMcp(s);
  build(turn(s));
  EXPECT_EQ(slurp(fs::path(dir_) / ".git" / "info" / "exclude"), "/.cursor/mcp.json\n");
}

TEST_F(CursorAdapterTest, NoRepositoryNoExclude) {
  AgentSpec s = spec();
  addMcp(s);
  build(turn(s));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / ".git"));
}

// ------------------------------------------------------ the rest of the API

TEST_F(CursorAdapterTest, UnsafeMcpNamesAreAnErrorAndWriteNoFile) {
  AgentSpec s = spec();
  auto t = turn(s);
  McpServerSpec extra;
  extra.name = "docs\",\"x";
  extra.url = "http://127.0.0.1:7000/mcp";
  t.extra_mcp_servers = {extra};
  auto inv = CursorAdapter().buildInvocation(t);
  ASSERT_FALSE(inv.isOk());
  EXPECT_THAT(inv.status().message(), HasSubstr("[A-Za-z0-9_-]{1,64}"));
  EXPECT_FALSE(fs::exists(mcpFile()));
}

TEST(CursorAdapter, NamesCapabilitiesAndValidation) {
  CursorAdapter adapter;
  EXPECT_EQ(adapter.name(), "cursor");
  EXPECT_THAT(adapter.aliases(), ElementsAre("cursor-agent"));
  EXPECT_EQ(adapter.binary(), "cursor-agent");
  EXPECT_EQ(adapter.promptTransport(), sdk::agents::PromptTransport::argv);
  auto caps = adapter.capabilities();
  EXPECT_TRUE(caps.experimental);
  EXPECT_TRUE(caps.resume && caps.mcp && caps.partial_deltas);
  EXPECT_FALSE(caps.base_url || caps.system_prompt || caps.max_turns || caps.budget);

  AgentSpec s;
  EXPECT_THAT(adapter.validate(s), IsEmpty());
  s.provider.base_url = "https://llm.example.com/v1";
  s.provider.wire_api = "chat";
  s.limits.max_turns = 3;
  s.limits.max_budget_usd = 1;
  auto errors = adapter.validate(s);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THAT(errors[0], HasSubstr("provider.base_url is not supported"));
  EXPECT_THAT(errors[1], HasSubstr("wire_api"));
  EXPECT_THAT(errors[2], HasSubstr("max_turns"));
  EXPECT_THAT(errors[3], HasSubstr("max_budget_usd"));
}

TEST(CursorAdapter, ClassifiesFailures) {
  CursorAdapter adapter;
  // What fake_agents/cursor-agent prints in FAKE_MODE=auth_error (after Cursor's docs).
  EXPECT_EQ(
      adapter.classifyFailure(1, "Error: Authentication required. Invalid CURSOR_API_KEY (401)\n")
          .code,
      "authentication_error");
  EXPECT_EQ(adapter.classifyFailure(1, "Please run `cursor-agent login` first").code,
            "authentication_error");
  EXPECT_EQ(adapter.classifyFailure(1, "Error: Chat abc not found").code, "invalid_request");
  EXPECT_EQ(adapter.classifyFailure(1, "You've hit your usage limit").code, "rate_limit_exceeded");
  EXPECT_EQ(adapter.classifyFailure(2, "segfault").code, "internal_error");
}

TEST(CursorMcpFile, MergeKeepsTheFileOrderAndStringsThatLookLikeComments) {
  auto merged = mergeCursorMcpConfig(
      "/* mine */ {\"z\": 1, \"mcpServers\": {\"b\": {\"url\": \"/* kept */\", \"args\": []},"
      " \"a\": {\"url\": \"old\"}}, \"a\": 2.50}",
      R"({"a":{"url":"new"},"c":{"command":"npx","args":["x"]}})");
  ASSERT_TRUE(merged.isOk()) << merged.status().message();
  EXPECT_EQ(*merged,
            "{\n"
            "  \"z\": 1,\n"
            "  \"mcpServers\": {\n"
            "    \"b\": {\n"
            "      \"url\": \"/* kept */\",\n"
            "      \"args\": []\n"
            "    },\n"
            "    \"a\": {\n"
            "      \"url\": \"new\"\n"
            "    },\n"
            "    \"c\": {\n"
            "      \"command\": \"npx\",\n"
            "      \"args\": [\n"
            "        \"x\"\n"
            "      ]\n"
            "    }\n"
            "  },\n"
            "  \"a\": 2.50\n"
            "}\n");
  auto unterminated = mergeCursorMcpConfig("/* open {\"a\": 1}", "{}");
  EXPECT_FALSE(unterminated.isOk());
}

TEST(CursorMcpFile, MergeIntoNothingCreatesTheKey) {
  auto merged = mergeCursorMcpConfig("", R"({"a":{"url":"u"}})");
  ASSERT_TRUE(merged.isOk());
  EXPECT_EQ(parse(*merged)->getObject("mcpServers")->getObject("a")->getValue<std::string>("url"),
            "u");
}

}  // namespace
}  // namespace abx::plugins::adapters
