// Integration: the policy's limits.max_duration_seconds on pty_create — the
// terminal session is closed at its deadline (the sweeper wakes for it, not
// after its idle period), with a client attached or not, and its shell ends.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>

#include "plugins/terminal/terminal_test_client.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace pty_support;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST(TerminalMaxDuration, ASessionIsClosedAtTheCeiling) {
  Config config;
  config.policy = "endpoints:\n  pty_create:\n    limits: {max_duration_seconds: 1}\n";
  ServerProcess server(options(config));
  auto c = create(server);
  const auto start = Clock::now();
  auto ws = attach(c);  // a client does not keep it open
  EXPECT_EQ(http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status, 200);
  ASSERT_TRUE(eventually(
      [&] { return http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status == 404; },
      5s));
  EXPECT_GE(Clock::now() - start, 900ms);
  EXPECT_TRUE(eventually([&] { return ::kill(c.pid, 0) != 0; }, 5s));
}

}  // namespace
}  // namespace abx::testing
