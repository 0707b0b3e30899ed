// Integration: agents_state.json with the real server — an HTTP-created
// definition, a vault and its credential survive a restart; with a state key
// their secrets come back (sealed on disk, never in clear, file 0600);
// without one they come back as not kept and the agent's turns say so until
// the secrets are sent again; a bad key stops the start without echoing it;
// a torn file is moved aside.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/agents_server.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "state-integration-token-1234";
constexpr const char* kKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
// The secrets: the inline one of the definition, and the vault credential's.
constexpr const char* kInline = "inline-canary-5b1e0c77";
constexpr const char* kVaulted = "vault-canary-9d2f4a18";

const auto kAuth = bearerJson(kToken);

Poco::JSON::Object::Ptr json(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A state dir that outlives one server: both servers of a test use it.
struct Shared {
  std::string dir;
  Shared() {
    char temp[] = "/tmp/abx-agents-state-XXXXXX";
    dir = ::mkdtemp(temp);
  }
  ~Shared() { std::filesystem::remove_all(dir); }
  std::string stateFile() const { return dir + "/state/agents_state.json"; }
};

ServerOptions stateServer(const Shared& shared, bool keyed) {
  ServerOptions o = fakeAgentsServer(kFakeAgentYaml, kToken);
  o.env["ABX_AGENTS_STATE_DIR"] = shared.dir + "/state";
  o.env["FAKE_AGENT_RECORD"] = shared.dir + "/record.jsonl";
  o.env["FAKE_AGENT_STATE_DIR"] = shared.dir + "/fake-state";
  o.env["ABX_AGENTS_PASSTHROUGH_ENV"] = "FAKE_AGENT_RECORD,FAKE_AGENT_STATE_DIR";
  if (keyed) o.env["ABX_AGENTS_STATE_KEY"] = kKey;
  return o;
}

HttpResult call(const ServerProcess& s, const std::string& method, const std::string& target,
                const std::string& body = "") {
  return http(s.port(), method, target, body, kAuth);
}

// A vault with one environment_variable credential, and an agent whose
// secrets hold one inline secret and one reference to that credential.
struct Created {
  std::string vault, credential;
};
Created createAll(const ServerProcess& s, const Shared& shared) {
  auto vault = call(s, "POST", "/v1/vaults", R"({"name":"keys"})");
  EXPECT_EQ(vault.status, 200) << vault.body;
  Created ids{json(vault.body)->getValue<std::string>("id"), ""};
  auto credential = call(s, "POST", "/v1/vaults/" + ids.vault + "/credentials",
                         R"({"name":"vaulted","auth":{"type":"environment_variable",)"
                         R"("secret_name":"FROM_VAULT","secret_value":")" +
                             std::string(kVaulted) + R"("}})");
  EXPECT_EQ(credential.status, 200) << credential.body;
  ids.credential = json(credential.body)->getValue<std::string>("id");
  auto agent =
      call(s, "POST", "/v1/agents",
           R"({"name":"durable","runtime":"command","metadata":{"team":"blue"},)"
           R"("command":{"argv":["fake-agent","--format","jsonl-codex"],"parser":"jsonl-codex"},)"
           R"("workspace":{"path":")" +
               shared.dir + R"(/work"},"secrets":{"INLINE_SECRET":")" + kInline +
               R"(","FROM_VAULT":{"vault":")" + ids.vault + R"(","credential":")" + ids.credential +
               R"("}}})");
  EXPECT_EQ(agent.status, 200) << agent.body;
  return ids;
}

// The environment the fake agent saw on its last run.
Poco::JSON::Object::Ptr lastAgentEnv(const Shared& shared) {
  std::ifstream in(shared.dir + "/record.jsonl");
  std::string line, last;
  while (std::getline(in, line)) last = line;
  return last.empty() ? nullptr : json(last)->getObject("env");
}

// Creates everything with a first server, stops it, and returns the ids
// and the state file's bytes, which never hold a secret in clear.
std::pair<Created, std::string> createAndRestart(const Shared& shared, bool keyed) {
  Created ids;
  {
    ServerProcess server(stateServer(shared, keyed));
    ids = createAll(server, shared);
  }
  auto bytes = readFile(shared.stateFile());
  EXPECT_THAT(bytes, HasSubstr("\"durable\""));
  EXPECT_THAT(bytes, Not(HasSubstr(kInline)));
  EXPECT_THAT(bytes, Not(HasSubstr(kVaulted)));
  return {ids, bytes};
}

HttpResult turn(const ServerProcess& s, const std::string& input) {
  return call(s, "POST", "/v1/responses", R"({"model":"durable","input":")" + input + R"("})");
}

TEST(AgentsState, WithAKeyADefinitionAndACredentialSurviveARestartSealed) {
  Shared shared;
  const auto [ids, bytes] = createAndRestart(shared, /*keyed=*/true);
  EXPECT_THAT(bytes, HasSubstr("abx-sealed:v1:"));
  EXPECT_THAT(bytes, Not(HasSubstr(kKey)));
  struct stat st {};
  ASSERT_EQ(::stat(shared.stateFile().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  ServerProcess server(stateServer(shared, /*keyed=*/true));
  auto agent = call(server, "GET", "/v1/agents/durable");
  ASSERT_EQ(agent.status, 200) << agent.body;
  EXPECT_EQ(json(agent.body)->getObject("metadata")->getValue<std::string>("team"), "blue");
  EXPECT_THAT(agent.body, Not(HasSubstr("secrets_not_kept")));
  auto credential =
      call(server, "GET", "/v1/vaults/" + ids.vault + "/credentials/" + ids.credential);
  ASSERT_EQ(credential.status, 200) << credential.body;
  EXPECT_THAT(credential.body, Not(HasSubstr("secret_kept")));
  auto r = turn(server, "after restart");
  ASSERT_EQ(r.status, 200) << r.body;
  auto env = lastAgentEnv(shared);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->optValue<std::string>("INLINE_SECRET", ""), kInline);
  EXPECT_EQ(env->optValue<std::string>("FROM_VAULT", ""), kVaulted);
  EXPECT_FALSE(env->has("ABX_AGENTS_STATE_KEY"));  // the key is the server's alone
  // The restored secrets guard the log like the ones sent over HTTP.
  server.stop();
  EXPECT_THAT(server.stderrText(), Not(HasSubstr(kInline)));
}

// libcrypto is opened by the first seal, not at load: an idle server with a
// state key (hex: read without OpenSSL) does not map it (docs/performance.md,
// "Idle footprint").
TEST(AgentsState, LibcryptoIsMappedByTheFirstSealNotAtStart) {
  Shared shared;
  ServerProcess server(stateServer(shared, /*keyed=*/true));
  auto maps = [&] { return readFile("/proc/" + std::to_string(server.pid()) + "/maps"); };
  ASSERT_EQ(call(server, "GET", "/v1/agents").status, 200);
  EXPECT_THAT(maps(), Not(HasSubstr(ABX_LIBCRYPTO_SONAME)));
  createAll(server, shared);
  EXPECT_THAT(maps(), HasSubstr(ABX_LIBCRYPTO_SONAME));
  EXPECT_THAT(readFile(shared.stateFile()), HasSubstr("abx-sealed:v1:"));
}

TEST(AgentsState, ASessionKeepsItsVaultIdsAcrossARestart) {
  Shared shared;
  std::string session, vault;
  {
    ServerProcess server(stateServer(shared, /*keyed=*/true));
    createAll(server, shared);
    auto made = call(server, "POST", "/v1/vaults", R"({"name":"session-keys"})");
    ASSERT_EQ(made.status, 200) << made.body;
    vault = json(made.body)->getValue<std::string>("id");
    ASSERT_EQ(call(server, "POST", "/v1/vaults/" + vault + "/credentials",
                   R"({"name":"s","auth":{"type":"environment_variable",)"
                   R"("secret_name":"SESSION_VAULT","secret_value":"session-vault-4321"}})")
                  .status,
              200);
    auto created = call(server, "POST", "/v1/agents/sessions",
                        R"({"agent_id":"durable","vault_ids":[")" + vault + R"("]})");
    ASSERT_EQ(created.status, 200) << created.body;
    session = json(created.body)->getValue<std::string>("id");
  }
  ServerProcess server(stateServer(shared, /*keyed=*/true));
  auto got = call(server, "GET", "/v1/agents/sessions/" + session);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_THAT(got.body, HasSubstr(R"("vault_ids":[")" + vault + R"("])"));
  // Its turns still get the vault's credential.
  auto input = call(server, "POST", "/v1/agents/sessions/" + session + "/events",
                    R"({"events":[{"type":"agent.session.input.message","input":"hi"}]})");
  ASSERT_EQ(input.status, 202) << input.body;
  Poco::JSON::Object::Ptr env;
  for (int i = 0; i < 200 && !(env = lastAgentEnv(shared)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(env);
  EXPECT_EQ(env->optValue<std::string>("SESSION_VAULT", ""), "session-vault-4321");
}

TEST(AgentsState, WithoutAKeySecretsAreNotKeptAndTurnsSaySoUntilTheyAreSentAgain) {
  Shared shared;
  const auto [ids, bytes] = createAndRestart(shared, /*keyed=*/false);
  EXPECT_THAT(bytes, Not(HasSubstr("abx-sealed:")));

  ServerProcess server(stateServer(shared, /*keyed=*/false));
  auto agent = call(server, "GET", "/v1/agents/durable");
  ASSERT_EQ(agent.status, 200) << agent.body;
  auto not_kept = json(agent.body)->getArray("secrets_not_kept");
  ASSERT_TRUE(not_kept);
  ASSERT_EQ(not_kept->size(), 1u);
  EXPECT_EQ(not_kept->getElement<std::string>(0), "secrets.INLINE_SECRET");
  const auto credential_path = "/v1/vaults/" + ids.vault + "/credentials/" + ids.credential;
  auto credential = call(server, "GET", credential_path);
  ASSERT_EQ(credential.status, 200) << credential.body;
  EXPECT_FALSE(json(credential.body)->getValue<bool>("secret_kept"));

  // A session given the vault: its turn fails naming the credential.
  auto session = call(server, "POST", "/v1/agents/sessions",
                      R"({"agent_id":"fake","environment":{"type":"none"},"input":"x",)"
                      R"("vault_ids":[")" +
                          ids.vault + R"("]})");
  ASSERT_EQ(session.status, 200) << session.body;
  const auto turns_path =
      "/v1/agents/sessions/" + json(session.body)->getValue<std::string>("id") + "/turns";
  std::string turns;
  for (int i = 0; i < 300 && turns.find(R"("status":"failed")") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    turns = call(server, "GET", turns_path).body;
  }
  EXPECT_THAT(turns, HasSubstr(R"("status":"failed")"));
  EXPECT_THAT(turns, HasSubstr("The secret of credential 'vaulted' (" + ids.credential));
  EXPECT_THAT(turns, HasSubstr("ABX_AGENTS_STATE_KEY"));

  auto refused = turn(server, "no secret");
  EXPECT_NE(refused.status, 200);
  EXPECT_THAT(refused.body, HasSubstr("secrets.INLINE_SECRET"));
  EXPECT_THAT(refused.body, HasSubstr("ABX_AGENTS_STATE_KEY"));
  // The agent's own secret again: now the credential's is what is missing.
  ASSERT_EQ(call(server, "POST", "/v1/agents/durable",
                 R"({"secrets":{"INLINE_SECRET":"again-1234567","FROM_VAULT":{"vault":")" +
                     ids.vault + R"(","credential":")" + ids.credential + R"("}}})")
                .status,
            200);
  refused = turn(server, "no vault secret");
  EXPECT_NE(refused.status, 200);
  EXPECT_THAT(refused.body, HasSubstr(ids.credential));
  EXPECT_THAT(refused.body, HasSubstr("was not kept"));
  ASSERT_EQ(call(server, "POST", credential_path,
                 R"({"auth":{"type":"environment_variable","secret_value":"vault-again-1234"}})")
                .status,
            200);
  auto r = turn(server, "secrets back");
  ASSERT_EQ(r.status, 200) << r.body;
  auto env = lastAgentEnv(shared);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->optValue<std::string>("FROM_VAULT", ""), "vault-again-1234");
  EXPECT_THAT(call(server, "GET", credential_path).body, Not(HasSubstr("secret_kept")));
}

TEST(AgentsState, ABadKeyStopsTheStartNamingTheVariableButNotTheValue) {
  Shared shared;
  auto options = stateServer(shared, /*keyed=*/false);
  options.env["ABX_AGENTS_STATE_KEY"] = "not-a-key-b7c4e1";
  options.expect_ready = false;
  ServerProcess server(options);
  auto code = server.waitExit(std::chrono::seconds(20));
  ASSERT_TRUE(code);
  EXPECT_NE(*code, 0);
  EXPECT_THAT(server.stderrText(), HasSubstr("ABX_AGENTS_STATE_KEY"));
  EXPECT_THAT(server.stderrText(), Not(HasSubstr("not-a-key-b7c4e1")));
}

TEST(AgentsState, AKeyFileWorksLikeTheVariable) {
  Shared shared;
  const std::string key_file = shared.dir + "/state.key";
  std::ofstream(key_file) << kKey << "\n";
  auto options = stateServer(shared, /*keyed=*/false);
  options.env["ABX_AGENTS_STATE_KEY_FILE"] = key_file;
  // A key others may read is refused, naming the file and its mode.
  ::chmod(key_file.c_str(), 0644);
  {
    auto refused = options;
    refused.expect_ready = false;
    ServerProcess server(refused);
    const auto code = server.waitExit(std::chrono::seconds(20));
    ASSERT_TRUE(code);
    EXPECT_NE(*code, 0);
    EXPECT_THAT(server.stderrText(),
                HasSubstr(key_file + " is readable or writable by others (mode 0644)"));
    EXPECT_THAT(server.stderrText(), Not(HasSubstr(kKey)));
  }
  ::chmod(key_file.c_str(), 0600);
  Created ids;
  {
    ServerProcess server(options);
    ids = createAll(server, shared);
  }
  EXPECT_THAT(readFile(shared.stateFile()), HasSubstr("abx-sealed:v1:"));
  ServerProcess server(options);
  auto credential =
      call(server, "GET", "/v1/vaults/" + ids.vault + "/credentials/" + ids.credential);
  ASSERT_EQ(credential.status, 200);
  EXPECT_THAT(credential.body, Not(HasSubstr("secret_kept")));
}

TEST(AgentsState, ATornFileIsKeptAsideAndTheServerStartsEmpty) {
  Shared shared;
  std::filesystem::create_directories(shared.dir + "/state");
  std::ofstream(shared.stateFile()) << R"({"version":1,"agents":[{"id":"torn)";
  ServerProcess server(stateServer(shared, /*keyed=*/true));
  auto list = call(server, "GET", "/v1/agents");
  ASSERT_EQ(list.status, 200);
  EXPECT_THAT(list.body, Not(HasSubstr("torn")));  // the config file's `fake` only
  bool kept = false;
  for (const auto& entry : std::filesystem::directory_iterator(shared.dir + "/state"))
    kept |= entry.path().filename().string().starts_with("agents_state.json.corrupt-");
  EXPECT_TRUE(kept);
  server.stop();
  EXPECT_THAT(server.stderrText(), HasSubstr("agents_state.json"));
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

TEST(AgentsState, LockedTheFileKeepsHttpDefinitionsWithoutRunningThem) {
  Shared shared;
  const auto ids = createAndRestart(shared, /*keyed=*/true).first;
  {
    auto locked = stateServer(shared, /*keyed=*/true);
    locked.env["ABX_AGENTS_LOCK_DEFINITIONS"] = "1";
    ServerProcess server(locked);
    EXPECT_EQ(call(server, "GET", "/v1/agents/durable").status, 404);
    EXPECT_NE(turn(server, "locked").status, 200);
    // A change while locked rewrites the file: the held definition stays in it.
    ASSERT_EQ(call(server, "POST", "/v1/vaults", R"({"name":"while-locked"})").status, 200);
  }
  ServerProcess server(stateServer(shared, /*keyed=*/true));
  EXPECT_EQ(call(server, "GET", "/v1/agents/durable").status, 200);
  auto r = turn(server, "unlocked again");
  ASSERT_EQ(r.status, 200) << r.body;
  auto env = lastAgentEnv(shared);
  ASSERT_TRUE(env);
  EXPECT_EQ(env->optValue<std::string>("INLINE_SECRET", ""), kInline);
  EXPECT_EQ(env->optValue<std::string>("FROM_VAULT", ""), kVaulted);
  EXPECT_THAT(call(server, "GET", "/v1/vaults").body, HasSubstr("while-locked"));
  EXPECT_EQ(call(server, "GET", "/v1/vaults/" + ids.vault).status, 200);
}

}  // namespace
}  // namespace abx::testing
