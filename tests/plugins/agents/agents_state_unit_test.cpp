// Durable agents state: the sealing of secret values (AES-256-GCM bound to
// their record), the state key's spellings, the secret leaves of a stored
// body, and agents_state.json round trips with a key, without one, with
// another key, and a file that does not read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "state/agents_state_file.h"
#include "state/secret_leaves.h"
#include "state/secret_sealer.h"

namespace abx::plugins::agents {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kHexKey[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
constexpr char kOtherHexKey[] = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
constexpr char kCanary[] = "canary-secret-7f3a9c";

std::shared_ptr<const SecretSealer> sealerOf(const char* hex) {
  return std::make_shared<SecretSealer>(*parseStateKey(hex, "test"));
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A temporary state dir, removed at the end of the test.
struct StateDir {
  std::string path;
  StateDir() {
    char name[] = "/tmp/abx-agents-state-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~StateDir() { std::filesystem::remove_all(path); }
};

TEST(StateKey, ReadsHexAndBase64AndRefusesTheRestWithoutEchoingIt) {
  auto hex = parseStateKey(std::string(kHexKey) + "\n", "ABX_AGENTS_STATE_KEY");
  ASSERT_TRUE(hex);
  EXPECT_EQ((*hex)[1], 1);
  EXPECT_EQ((*hex)[31], 0x1f);
  // The same 32 bytes in base64, with and without padding.
  auto b64 = parseStateKey("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "k");
  ASSERT_TRUE(b64);
  EXPECT_EQ(*b64, *hex);
  EXPECT_TRUE(parseStateKey("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "k"));
  for (const char* bad :
       {"", "short-key-value", "zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gIQ=="}) {
    auto refused = parseStateKey(bad, "ABX_AGENTS_STATE_KEY");
    ASSERT_FALSE(refused) << bad;
    EXPECT_THAT(refused.status().message(), HasSubstr("ABX_AGENTS_STATE_KEY"));
    EXPECT_THAT(refused.status().message(), HasSubstr("64 hex digits"));
    if (*bad) {
      EXPECT_THAT(refused.status().message(), Not(HasSubstr(bad)));
    }
  }
}

TEST(SecretSealer, RoundTripsWithAFreshNonceEachTime) {
  auto sealer = sealerOf(kHexKey);
  const auto a = sealer->seal(kCanary, "credential\nvlt_1\ncred_1");
  const auto b = sealer->seal(kCanary, "credential\nvlt_1\ncred_1");
  EXPECT_TRUE(a.starts_with("abx-sealed:v1:"));
  EXPECT_NE(a, b);  // a fresh nonce per value
  EXPECT_THAT(a, Not(HasSubstr(kCanary)));
  EXPECT_EQ(sealer->open(a, "credential\nvlt_1\ncred_1"), kCanary);
  EXPECT_EQ(sealer->open(b, "credential\nvlt_1\ncred_1"), kCanary);
  EXPECT_EQ(sealer->open(sealer->seal("", "x"), "x"), "");
}

TEST(SecretSealer, AlteredBytesDoNotOpen) {
  auto sealer = sealerOf(kHexKey);
  const auto sealed = sealer->seal(kCanary, "binding");
  // Flip one character of the base64 body at every position of the nonce,
  // the ciphertext and the tag.
  for (std::size_t i = kSealedPrefix.size(); i + 2 < sealed.size(); ++i) {
    auto altered = sealed;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_FALSE(sealer->open(altered, "binding")) << "position " << i;
  }
  EXPECT_FALSE(sealer->open(sealed.substr(0, sealed.size() - 4), "binding"));  // truncated
  EXPECT_FALSE(sealer->open("abx-sealed:v1:", "binding"));
  EXPECT_FALSE(sealer->open(kCanary, "binding"));  // not sealed at all
  EXPECT_FALSE(sealer->open("abx-sealed:v2:" + sealed.substr(kSealedPrefix.size()), "binding"));
}

TEST(SecretSealer, AnotherKeyDoesNotOpen) {
  const auto sealed = sealerOf(kHexKey)->seal(kCanary, "binding");
  EXPECT_FALSE(sealerOf(kOtherHexKey)->open(sealed, "binding"));
}

TEST(SecretSealer, AValueMovedToAnotherRecordDoesNotOpen) {
  auto sealer = sealerOf(kHexKey);
  const auto sealed = sealer->seal(kCanary, "credential\nvlt_1\ncred_1");
  EXPECT_FALSE(sealer->open(sealed, "credential\nvlt_1\ncred_2"));
  EXPECT_FALSE(sealer->open(sealed, "credential\nvlt_2\ncred_1"));
  EXPECT_FALSE(sealer->open(sealed, ""));
}

ConfigValue body(const char* json) { return *configFromJson(std::string_view(json)); }

TEST(SecretLeaves, TakesEveryStringHoldingASecretAndPutsItBack) {
  auto tree =
      body(R"({"name":"a","provider":{"api_key":"sk-1234","base_url":"https://u:sk-1234@h/v1"},
      "tools":[{"headers":{"Authorization":"Bearer tok-99","a/b~c":"tok-99"}}],"n":3})");
  const auto original = tree;
  auto leaves = takeSecretLeaves(tree, {"sk-1234", "tok-99"});
  ASSERT_EQ(leaves.size(), 4u);
  EXPECT_EQ(leaves[0].pointer, "/provider/api_key");
  EXPECT_EQ(leaves[1].value, "https://u:sk-1234@h/v1");
  EXPECT_EQ(leaves[3].pointer, "/tools/0/headers/a~1b~0c");
  EXPECT_EQ(tree.find("provider")->find("base_url")->text, "https://u:abx-secret-not-kept@h/v1");
  EXPECT_THAT(secretsNotKept(tree),
              ::testing::ElementsAre("provider.api_key", "provider.base_url",
                                     "tools[0].headers.Authorization", "tools[0].headers.a/b~c"));
  for (auto& leaf : leaves) EXPECT_TRUE(putSecretLeaf(tree, leaf.pointer, leaf.value));
  EXPECT_TRUE(secretsNotKept(tree).empty());
  sdk::JsonWriter a, b;
  writeConfigValue(a, tree);
  writeConfigValue(b, original);
  EXPECT_EQ(a.take(), b.take());
  EXPECT_FALSE(putSecretLeaf(tree, "/provider/none", "x"));
  EXPECT_FALSE(putSecretLeaf(tree, "/n", "x"));  // not a string
}

// A state with one agent (a secret in its body and translation) and one credential.
AgentsState sampleState() {
  AgentsState state;
  AgentRecord a;
  a.id = "durable";
  a.created_at = 100;
  a.updated_at = 200;
  a.body =
      body(R"({"name":"durable","runtime":"codex","provider":{"api_key":"canary-secret-7f3a9c"}})");
  a.definition = a.body;
  a.metadata = {{"team", "blue"}};
  a.secrets = {kCanary};
  state.agents.push_back(a);
  state.vaults.push_back(Vault{"vlt_1", "admin", "keys", {}, 10});
  Credential c;
  c.id = "cred_1";
  c.vault_id = "vlt_1";
  c.name = "token";
  c.type = "environment_variable";
  c.secret_name = "MY_TOKEN";
  c.secret = kCanary;
  state.credentials.push_back(c);
  return state;
}

TEST(AgentsStateFile, KeepsSecretsSealedWithAKeyInA0600File) {
  StateDir dir;
  AgentsStateFile file(dir.path, sealerOf(kHexKey));
  ASSERT_TRUE(file.save(sampleState()));
  const auto bytes = readFile(file.path());
  EXPECT_THAT(bytes, Not(HasSubstr(kCanary)));
  EXPECT_THAT(bytes, HasSubstr("abx-sealed:v1:"));
  struct stat st {};
  ASSERT_EQ(::stat(file.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(file.path() + ".tmp"));
  auto loaded = file.load(1000);
  EXPECT_TRUE(loaded.warnings.empty());
  ASSERT_EQ(loaded.state.agents.size(), 1u);
  const auto& a = loaded.state.agents[0];
  EXPECT_EQ(a.body.find("provider")->find("api_key")->text, kCanary);
  EXPECT_EQ(a.definition.find("provider")->find("api_key")->text, kCanary);
  EXPECT_EQ(a.created_at, 100);
  EXPECT_EQ(a.metadata.at("team"), "blue");
  ASSERT_EQ(loaded.state.credentials.size(), 1u);
  EXPECT_EQ(loaded.state.credentials[0].secret, kCanary);
  EXPECT_EQ(loaded.state.vaults.at(0).owner, "admin");
}

TEST(AgentsStateFile, WithoutAKeyLeavesSecretsOutAndBringsThemBackAsNotKept) {
  StateDir dir;
  AgentsStateFile file(dir.path, nullptr);
  ASSERT_TRUE(file.save(sampleState()));
  EXPECT_THAT(readFile(file.path()), Not(HasSubstr(kCanary)));
  auto loaded = file.load(1000);
  ASSERT_EQ(loaded.state.agents.size(), 1u);
  EXPECT_THAT(secretsNotKept(loaded.state.agents[0].body),
              ::testing::ElementsAre("provider.api_key"));
  EXPECT_EQ(loaded.state.credentials.at(0).secret, "");
}

TEST(AgentsStateFile, AnotherKeyBringsSecretsBackAsNotKeptAndKeepsTheSealedFile) {
  StateDir dir;
  ASSERT_TRUE(AgentsStateFile(dir.path, sealerOf(kHexKey)).save(sampleState()));
  AgentsStateFile other(dir.path, sealerOf(kOtherHexKey));
  auto loaded = other.load(1234);
  EXPECT_EQ(loaded.state.credentials.at(0).secret, "");
  EXPECT_EQ(secretsNotKept(loaded.state.agents.at(0).body).size(), 1u);
  ASSERT_EQ(loaded.warnings.size(), 2u);
  EXPECT_THAT(loaded.warnings[0], HasSubstr("another state key"));
  EXPECT_THAT(loaded.warnings[1], HasSubstr("did not open"));
  // The sealed originals stay for a restart with the right key.
  auto kept = AgentsStateFile(dir.path, sealerOf(kHexKey));
  std::filesystem::rename(other.path() + ".unopened-1234", other.path());
  EXPECT_EQ(kept.load(1).state.credentials.at(0).secret, kCanary);
}

TEST(AgentsStateFile, ASealedValueSwappedBetweenRecordsDoesNotOpen) {
  StateDir dir;
  auto state = sampleState();
  auto second = state.credentials[0];
  second.id = "cred_2";
  second.secret = "another-secret-value";
  state.credentials.push_back(second);
  AgentsStateFile file(dir.path, sealerOf(kHexKey));
  ASSERT_TRUE(file.save(state));
  // Swap the two sealed secrets in the file.
  auto bytes = readFile(file.path());
  std::vector<std::string> sealed;
  for (auto at = bytes.find("\"secret\":\""); at != std::string::npos;
       at = bytes.find("\"secret\":\"", at + 1)) {
    const auto start = at + 10;
    sealed.push_back(bytes.substr(start, bytes.find('"', start) - start));
  }
  ASSERT_EQ(sealed.size(), 2u);
  bytes.replace(bytes.find(sealed[0]), sealed[0].size(), "@@first@@");
  bytes.replace(bytes.find(sealed[1]), sealed[1].size(), sealed[0]);
  bytes.replace(bytes.find("@@first@@"), 9, sealed[1]);
  std::ofstream(file.path(), std::ios::binary | std::ios::trunc) << bytes;
  auto loaded = file.load(1);
  ASSERT_EQ(loaded.state.credentials.size(), 2u);
  EXPECT_EQ(loaded.state.credentials[0].secret, "");
  EXPECT_EQ(loaded.state.credentials[1].secret, "");
}

TEST(AgentsStateFile, ATornFileIsMovedAsideAndTheStateStartsEmpty) {
  StateDir dir;
  AgentsStateFile file(dir.path, sealerOf(kHexKey));
  ASSERT_TRUE(file.save(sampleState()));
  const auto bytes = readFile(file.path());
  std::ofstream(file.path(), std::ios::binary | std::ios::trunc)
      << bytes.substr(0, bytes.size() / 2);
  auto loaded = file.load(777);
  EXPECT_TRUE(loaded.state.agents.empty());
  EXPECT_TRUE(loaded.state.credentials.empty());
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_THAT(loaded.warnings[0], HasSubstr(".corrupt-777"));
  EXPECT_FALSE(std::filesystem::exists(file.path()));
  EXPECT_TRUE(std::filesystem::exists(file.path() + ".corrupt-777"));
  // A missing file is an empty state, without a word.
  EXPECT_TRUE(file.load(778).warnings.empty());
}

}  // namespace
}  // namespace abx::plugins::agents
