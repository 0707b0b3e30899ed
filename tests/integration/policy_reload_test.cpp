// Integration: SIGHUP policy reloads in the real server — each reload frees
// the policy it replaces once no request holds it (the memory stays flat
// over hundreds of reloads), and requests in flight across a reload (a
// stream, a long command) finish under the policy they started with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/build_kind.h"
#include "support/proc_file.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

const std::string kManifest =
    "plugins:\n  - name: commands\n    file: abx_commands.so\n"
    "    settings:\n      commands_file: {dir}/commands.yaml\n"
    "  - name: echo\n    file: " +
    fixtureDir() + "/abx_test_echo.so\n";
const std::string kCommands =
    "commands:\n  - name: slow\n    argv: [\"/bin/sh\", \"-c\", \"sleep 1; echo long-done\"]\n";
// sha256("admin-token-123")
const std::string kAdminSha = "6717e5c62baa84bd092a904b427653496bd0559f728b87647bf731a6f0febde1";
const std::vector<std::pair<std::string, std::string>> kAdmin = {
    {"X-Access-Token", "admin-token-123"}};

/**
 * A policy the size of a real deployment's (200 identities): each revision
 * costs the server tens of KiB, which a leak could not hide.
 */
std::string policyText(const std::string& endpoints) {
  std::string text = "audit_log: {dir}/audit.jsonl\nauth:\n  tokens:\n";
  text += "    - {id: admin, token_sha256: " + kAdminSha + ", scopes: [\"*\"]}\n";
  char digest[65];
  for (int i = 0; i < 200; ++i) {
    std::snprintf(digest, sizeof digest, "%064x", i + 1);
    text += "    - {id: user" + std::to_string(i) + ", token_sha256: " + digest +
            ", scopes: [\"echo:read\", \"commands:run\"]}\n";
  }
  return text + "endpoints:\n" + endpoints;
}

const std::string kEndpoints =
    "  echo_stream: {audit: all}\n"
    "  echo_post: {audit: all, limits: {max_request_bytes: 4096}}\n"
    "  echo_item: {enabled: true}\n";

ServerProcess reloadableServer() {
  ServerOptions o;
  o.files = {{"plugins.yaml", kManifest},
             {"commands.yaml", kCommands},
             {"policy.yaml", policyText(kEndpoints)}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--policy", "{dir}/policy.yaml"};
  return ServerProcess(o);
}

/** Sends SIGHUP and waits for the log line of @p revision. */
bool reloadTo(ServerProcess& server, int revision) {
  ::kill(server.pid(), SIGHUP);
  const std::string line = "reloaded (revision " + std::to_string(revision) + ")";
  for (int i = 0; i < 1000; ++i) {
    if (server.stderrText().find(line) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

/** VmRSS of @p pid in KiB, or -1. */
long rssKiB(pid_t pid) {
  const std::string status = readProcFile("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmRSS:");
  if (at == std::string::npos) return -1;
  return std::stol(status.substr(at + 6));
}

TEST(PolicyReload, ManyReloadsKeepTheMemoryFlat) {
  ServerProcess server = reloadableServer();
  const int p = server.port();
  int revision = 1;
  for (; revision < 50; ++revision) ASSERT_TRUE(reloadTo(server, revision + 1)) << revision;
  ASSERT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
  const long warm = rssKiB(server.pid());
  for (; revision < 200; ++revision) ASSERT_TRUE(reloadTo(server, revision + 1)) << revision;
  ASSERT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
  const long after = rssKiB(server.pid());
  ASSERT_GT(warm, 0);
  ASSERT_GT(after, 0);
  EXPECT_THAT(http(p, "GET", "/capabilities", "", kAdmin).body, HasSubstr(R"("revision":200)"));
  // Keeping every revision (over 100 KiB each here) would add over 15 MiB.
  std::printf("VmRSS after 50 reloads: %ld KiB, after 200: %ld KiB (growth %ld KiB)\n", warm, after,
              after - warm);
  if (kRssIsMeaningful) {
    EXPECT_LT(after - warm, 2048) << "KiB over 150 reloads";
  }
}

TEST(PolicyReload, RequestsInFlightFinishAcrossAReload) {
  ServerProcess server = reloadableServer();
  const int p = server.port();
  auto stream = std::async(std::launch::async, [p] {
    return http(p, "POST", "/echo/stream", R"({"count":5,"delay_ms":200})", kAdmin);
  });
  auto slow =
      std::async(std::launch::async, [p] { return http(p, "POST", "/commands/slow", "", kAdmin); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string next = policyText("  echo_item: {enabled: false}\n");
  next.replace(next.find("{dir}"), 5, server.dir());
  std::ofstream(server.dir() + "/policy.yaml") << next;
  ASSERT_TRUE(reloadTo(server, 2));
  // Several more revisions come and go while both still hold revision 1.
  for (int revision = 3; revision <= 6; ++revision) ASSERT_TRUE(reloadTo(server, revision));
  EXPECT_EQ(http(p, "GET", "/echo/items/1", "", kAdmin).status, 404);

  const HttpResult streamed = stream.get();
  EXPECT_EQ(streamed.status, 200);
  EXPECT_THAT(streamed.body, HasSubstr(R"({"step":5})"));
  EXPECT_THAT(streamed.body, HasSubstr(R"({"total":5})"));
  const HttpResult long_request = slow.get();
  EXPECT_EQ(long_request.status, 200) << long_request.body;
  EXPECT_THAT(long_request.body, HasSubstr("long-done"));
  // The stream was audited when it ended, under the policy it started with.
  std::ifstream audit(server.dir() + "/audit.jsonl");
  const std::string records((std::istreambuf_iterator<char>(audit)), {});
  // The stream's record when it ended: revision 1 audits it ("audit: all"),
  // the revisions in force by then would not.
  const auto at = records.find(R"("endpoint":"echo_stream")");
  ASSERT_NE(at, std::string::npos) << records;
  const std::string line = records.substr(at, records.find('\n', at) - at);
  EXPECT_THAT(line, HasSubstr(R"("decision":"allow")"));
  EXPECT_THAT(line, HasSubstr(R"("status":200)"));
  EXPECT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
}

}  // namespace
}  // namespace abx::testing
