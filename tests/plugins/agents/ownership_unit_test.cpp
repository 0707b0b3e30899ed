// Owners of the agents plugin's objects (ownership.h): sessions, their turns
// and vaults are their creator's, or admin's; owners survive sessions.json;
// Idempotency-Keys of two identities never meet.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "ownership.h"
#include "runtime/session_file.h"
#include "wire/response_store.h"

namespace abx::plugins::agents {
namespace {

using namespace std::chrono_literals;

const sdk::Identity kAlice{"alice", {"agents:run", "agents:admin"}};
const sdk::Identity kBob{"bob", {"agents:*", "admin:all"}};
const sdk::Identity kRoot{"root", {"admin"}};
const sdk::Identity kLegacy{"legacy", {"*"}};

class TempDir {
 public:
  TempDir() {
    char dir[] = "/tmp/abx-owner-XXXXXX";
    if (!::mkdtemp(dir)) throw std::runtime_error("mkdtemp");
    path = dir;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

// A runtime whose one agent has no adapter: sessions and turns exist, turns
// fail at once when a worker picks them up.
std::unique_ptr<AgentRuntime> bareRuntime() {
  RuntimeOptions options;
  options.max_concurrent_turns = 1;
  auto agent = std::make_shared<const ResolvedAgent>();
  return std::make_unique<AgentRuntime>(options,
                                        [agent](const std::string& name, std::string& why) {
                                          if (name == "a") return agent;
                                          why = "no agent " + name;
                                          return std::shared_ptr<const ResolvedAgent>();
                                        });
}

TEST(AgentsOwnership, TheCreatorOrAdminActs) {
  EXPECT_TRUE(mayActOn(kAlice, "alice"));
  EXPECT_FALSE(mayActOn(kBob, "alice"));  // agents:* and admin:all are not `admin`
  EXPECT_TRUE(mayActOn(kRoot, "alice"));
  EXPECT_TRUE(mayActOn(kLegacy, "alice"));
  // A record from before owners were kept belongs to admin only.
  EXPECT_FALSE(mayActOn(sdk::Identity{"", {"agents:run"}}, ""));
  EXPECT_TRUE(mayActOn(kRoot, ""));
}

TEST(AgentsOwnership, SessionsAndTheirTurnsAreTheirCreators) {
  auto runtime = bareRuntime();
  auto session = runtime->createSession("a", {}, "alice");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->owner, "alice");
  EXPECT_TRUE(visibleSession(*runtime, session->id, kAlice));
  EXPECT_FALSE(visibleSession(*runtime, session->id, kBob));
  EXPECT_TRUE(visibleSession(*runtime, session->id, kRoot));
  EXPECT_FALSE(visibleSession(*runtime, "agsess_none", kRoot));
  auto turn = runtime->submitTurn(session->id, TurnRequest{});
  ASSERT_TRUE(turn);
  EXPECT_TRUE(visibleTurn(*runtime, turn->id, kAlice));
  EXPECT_FALSE(visibleTurn(*runtime, turn->id, kBob));
  EXPECT_TRUE(visibleTurn(*runtime, turn->id, kRoot));
  EXPECT_FALSE(visibleTurn(*runtime, "turn_none", kRoot));
  runtime->waitTurn(turn->id, 5s);
  runtime->shutdown();
}

TEST(AgentsOwnership, OwnersSurviveSessionsJson) {
  TempDir dir;
  SessionFile file(dir.path + "/state");
  SessionInfo alices;
  alices.id = "agsess_1";
  alices.agent = "a";
  alices.owner = "alice";
  ASSERT_TRUE(file.save({alices}, {}));
  auto loaded = file.load(0);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->sessions.size(), 1u);
  EXPECT_EQ(loaded->sessions[0].owner, "alice");
  // A file written before owners were kept: no owner, admin's only.
  std::ofstream(file.path()) << R"({"version":1,"sessions":[{"id":"agsess_2","agent":"a"}]})";
  loaded = file.load(0);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->sessions.size(), 1u);
  EXPECT_EQ(loaded->sessions[0].owner, "");
}

TEST(AgentsOwnership, AVaultIsItsCreators) {
  VaultStore vaults;
  auto vault = vaults.createVault("alice", "mine", {}, 1);
  EXPECT_EQ(vault.owner, "alice");
  EXPECT_TRUE(visibleVault(vaults, vault.id, kAlice));
  EXPECT_FALSE(visibleVault(vaults, vault.id, kBob));
  EXPECT_TRUE(visibleVault(vaults, vault.id, kRoot));
  EXPECT_FALSE(visibleVault(vaults, "vlt_none", kRoot));
}

TEST(AgentsOwnership, IdempotencyKeysOfTwoIdentitiesNeverMeet) {
  EXPECT_NE(callerKey(kAlice, "k"), callerKey(kBob, "k"));
  // No identity/key split spells another pair.
  EXPECT_NE(callerKey(sdk::Identity{"ab", {}}, "c"), callerKey(sdk::Identity{"a", {}}, "bc"));
  ResponseStore store;
  store.remember(callerKey(kAlice, "k"), "resp_1", 100);
  EXPECT_EQ(store.idempotent(callerKey(kAlice, "k"), 100), std::optional<std::string>("resp_1"));
  EXPECT_EQ(store.idempotent(callerKey(kBob, "k"), 100), std::nullopt);
  EXPECT_EQ(store.idempotent(callerKey(kRoot, "k"), 100), std::nullopt);
}

}  // namespace
}  // namespace abx::plugins::agents
