// Integration: the agents' state directory on a full disk (a small tmpfs
// filled up). Turns and definitions must keep working for clients, the
// state files must stay whole (the previous version), a failed save must be
// logged once per streak and leave no temporary file, and once space is
// freed the next save must hold everything, which a restart then loads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "agent_faults_support.h"
#include "support/tmpfs_mount.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using namespace faults;
using namespace std::chrono_literals;

// Room for a few state files; the filler takes the rest.
constexpr std::uint64_t kTmpfsBytes = 1u << 20;
constexpr const char* kToken = "disk-full-token-1234";
const auto kAuth = bearerJson(kToken);

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

ServerOptions stateOn(const TmpfsMount& mount) {
  auto o = fakeAgentsServer(kFakeAgentYaml, kToken);
  o.env["ABX_AGENTS_STATE_DIR"] = mount.dir();
  return o;
}

// A new session with one turn, waited for: its id, or "" when the turn did
// not complete.
std::string completedSession(int port) {
  auto r = http(port, "POST", "/v1/agents/sessions", R"({"agent_id":"fake","input":"hi"})", kAuth);
  if (r.status != 200) return "";
  const auto session = parseObject(r.body)->getValue<std::string>("id");
  auto turn = waitTurnEnd(port, session, kToken, {}, 15s);
  return turn && turn->getValue<std::string>("status") == "completed" ? session : "";
}

TEST(AgentsDiskFull, SessionsJsonStaysWholeTurnsCompleteAndALaterSaveHoldsThemAll) {
  ABX_TMPFS_OR_SKIP(mount, kTmpfsBytes);
  const std::string file = mount.dir() + "/sessions.json";
  std::vector<std::string> sessions;
  std::string whole;
  {
    ServerProcess server(stateOn(mount));
    const int port = server.port();
    sessions.push_back(completedSession(port));
    ASSERT_FALSE(sessions.back().empty());
    whole = readText(file);
    ASSERT_NO_THROW(parseObject(whole));
    mount.fillLeaving(mount.dir() + "/filler", 0);
    const auto free_full = mount.freeBytes();

    constexpr int kFullTurns = 4;
    for (int i = 0; i < kFullTurns; ++i) {
      sessions.push_back(completedSession(port));
      ASSERT_FALSE(sessions.back().empty()) << "a turn on a full disk did not complete";
      // The previous whole version, never a torn one, and no temporary left.
      ASSERT_EQ(readText(file), whole);
      EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
      EXPECT_EQ(http(port, "GET", "/health").status, 200);
    }
    const auto log = server.stderrText();
    EXPECT_EQ(count(log, "sessions not saved"), 1u) << log;
    EXPECT_THAT(log, HasSubstr("No space left on device"));

    std::filesystem::remove(mount.dir() + "/filler");
    sessions.push_back(completedSession(port));
    ASSERT_FALSE(sessions.back().empty());
    const auto saved = readText(file);
    for (const auto& s : sessions) EXPECT_THAT(saved, HasSubstr(s));
    EXPECT_THAT(server.stderrText(), HasSubstr("sessions saved again"));
    std::cout << "[figure] sessions.json on a full disk: " << kFullTurns << " turns completed with "
              << free_full << " bytes free, the file stayed at its " << whole.size()
              << "-byte version, " << count(log, "sessions not saved")
              << " warning; after freeing space one save wrote " << saved.size()
              << " bytes with all " << sessions.size() << " sessions\n";
    EXPECT_EQ(server.stop(), 0);
  }
  // A restart loads every session and its completed turn.
  ServerProcess server(stateOn(mount));
  for (const auto& s : sessions) {
    const auto turns = turnsOf(server.port(), s, kToken);
    ASSERT_EQ(turns.size(), 1u) << s;
    EXPECT_EQ(turns[0]->getValue<std::string>("status"), "completed");
  }
}

TEST(AgentsDiskFull, AgentsStateJsonStaysWholeAndTheNextSaveAfterSpaceIsFreedHoldsAll) {
  ABX_TMPFS_OR_SKIP(mount, kTmpfsBytes);
  const std::string file = mount.dir() + "/agents_state.json";
  auto create = [](int port, const std::string& name) {
    return http(port, "POST", "/v1/agents",
                R"({"name":")" + name +
                    R"(","runtime":"command","command":{"argv":["fake-agent"],)"
                    R"("parser":"jsonl-codex"},"workspace":{"path":"/tmp"}})",
                kAuth);
  };
  {
    ServerProcess server(stateOn(mount));
    const int port = server.port();
    ASSERT_EQ(create(port, "first").status, 200);
    const auto whole = readText(file);
    ASSERT_THAT(whole, HasSubstr("\"first\""));
    mount.fillLeaving(mount.dir() + "/filler", 0);
    auto full = create(port, "second");
    std::cout << "[figure] agents_state.json on a full disk: POST /v1/agents answered "
              << full.status << "; the file stayed at its " << whole.size() << "-byte version\n";
    EXPECT_EQ(full.status, 200) << full.body;
    EXPECT_EQ(readText(file), whole);
    EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
    EXPECT_THAT(server.stderrText(), HasSubstr("No space left on device"));
    std::filesystem::remove(mount.dir() + "/filler");
    ASSERT_EQ(create(port, "third").status, 200);
    for (const char* name : {"\"first\"", "\"second\"", "\"third\""})
      EXPECT_THAT(readText(file), HasSubstr(name));
  }
  ServerProcess server(stateOn(mount));
  for (const char* name : {"first", "second", "third"})
    EXPECT_EQ(http(server.port(), "GET", std::string("/v1/agents/") + name, "", kAuth).status, 200)
        << name;
}

}  // namespace
}  // namespace abx::testing
