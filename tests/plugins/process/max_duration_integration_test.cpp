// Integration: the policy's limits.max_duration_seconds on the process
// routes of the real server — /shell and /shell/stream stop a command at the
// ceiling (and a body "timeout" cannot raise it), and a background
// process_start process is killed when its lifetime passes it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "plugins/process/process_test_support.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ::testing::HasSubstr;

ServerOptions ceilingServer(const std::string& endpoint) {
  ServerOptions o;
  o.manifest = "plugins:\n  - name: process\n    file: abx_process.so\n    id: abx.process\n";
  o.files["policy.yaml"] =
      "endpoints:\n  " + endpoint + ":\n    limits: {max_duration_seconds: 1}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  return o;
}

TEST(ProcessMaxDuration, ShellStopsAtTheCeiling) {
  ServerProcess server(ceilingServer("shell"));
  const auto start = Clock::now();
  auto r = http(server.port(), "POST", "/shell", R"({"command":"sleep 5","timeout":60})");
  const auto took = Clock::now() - start;
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr(R"("error":"Command timed out after 1 seconds")"));
  EXPECT_THAT(r.body, HasSubstr(R"("type":"TimeoutError")"));
  EXPECT_GE(took, 1s);
  EXPECT_LT(took, 4s);  // the ladder's 2 s at most, not the 5 s sleep
}

TEST(ProcessMaxDuration, ShellStreamStopsAtTheCeiling) {
  ServerProcess server(ceilingServer("shell_stream"));
  const auto start = Clock::now();
  SseClient sse(server.port(), R"({"command":"sleep 5"})");
  EXPECT_EQ(sse.status(), 200);
  const std::string events = sse.rest();
  EXPECT_LT(Clock::now() - start, 4s);
  EXPECT_THAT(events, HasSubstr("timed out after 1 seconds"));
}

TEST(ProcessMaxDuration, BackgroundProcessIsKilledAtTheCeiling) {
  ServerProcess server(ceilingServer("process_start"));
  auto started = http(server.port(), "POST", "/process/start", R"({"command":"sleep 60"})");
  ASSERT_EQ(started.status, 200) << started.body;
  const auto at = started.body.find(R"("pid":)");
  ASSERT_NE(at, std::string::npos);
  const int pid = std::stoi(started.body.substr(at + 6));
  const auto start = Clock::now();
  EXPECT_EQ(groupMembers(pid).size(), 1u);
  ASSERT_TRUE(eventually(
      [&] {
        return http(server.port(), "GET", "/process/" + std::to_string(pid), "")
                   .body.find(R"("state":"exited")") != std::string::npos;
      },
      6000ms));
  EXPECT_GE(Clock::now() - start, 900ms);
  EXPECT_TRUE(groupMembers(pid).empty());
}

}  // namespace
}  // namespace abx::testing
