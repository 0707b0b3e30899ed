// What the plugin registers (the `terminal` group, not opt-in, and six
// routes with DESIGN.md's ids and scope), its settings, and the WebSocket
// service following pty_connect's policy through policyApplied().
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/StreamSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abx/sdk/testing/fake_host.h"
#include "terminal_plugin.h"

namespace abx::plugins::terminal {
namespace {

using ::testing::_;
using ::testing::Return;

bool listening(int port) {
  try {
    Poco::Net::StreamSocket s(
        Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)));
    return true;
  } catch (const Poco::Exception&) {
    return false;
  }
}

struct Host : sdk::testing::FakeHost {
  Host() : FakeHost("/tmp") {
    info.host = "127.0.0.1";
    info.pty_port = 0;
    ON_CALL(mock, endpointPolicy(_)).WillByDefault([this](std::string_view) {
      return std::optional<sdk::EndpointPolicy>(policy);
    });
  }
  sdk::EndpointPolicy policy;
};

TEST(TerminalPluginStart, RegistersTheGroupAndSixRoutes) {
  Host host;
  auto plugin = makeTerminalPlugin(host.mock);
  ASSERT_TRUE(plugin->start(host.mock));
  ASSERT_EQ(host.routes.groups.size(), 1u);
  EXPECT_EQ(host.routes.groups[0].name, "terminal");
  EXPECT_FALSE(host.routes.groups[0].opt_in);
  struct Expected {
    const char *method, *path, *endpoint;
  };
  const Expected expected[] = {{"POST", "/pty/sessions", "pty_create"},
                               {"GET", "/pty/sessions", "pty_list"},
                               {"GET", "/pty/sessions/{id}", "pty_get"},
                               {"POST", "/pty/sessions/{id}/resize", "pty_resize"},
                               {"DELETE", "/pty/sessions/{id}", "pty_delete"},
                               {"GET", "/pty", "pty_connect"}};
  ASSERT_EQ(host.routes.routes.size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    const auto& r = host.routes.routes[i];
    EXPECT_EQ(r.method, expected[i].method);
    EXPECT_EQ(r.path, expected[i].path);
    EXPECT_EQ(r.endpoint, expected[i].endpoint);
    EXPECT_EQ(r.group, "terminal");
    EXPECT_EQ(r.scopes, std::vector<std::string>{"terminal:use"});
    EXPECT_TRUE(r.auth_required);
    EXPECT_FALSE(r.streaming);
    EXPECT_TRUE(r.handler);
    EXPECT_FALSE(r.summary.empty());
  }
  plugin->stop();
}

TEST(TerminalPluginStart, Settings) {
  sdk::Settings s;
  auto defaults = readSettings(s);
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->max_sessions, 10u);
  EXPECT_EQ(defaults->idle_timeout, std::chrono::seconds(1800));
  s.values = {{"max_sessions", "3"}, {"idle_timeout_seconds", "60"}};
  auto set = readSettings(s);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->max_sessions, 3u);
  EXPECT_EQ(set->idle_timeout, std::chrono::seconds(60));
  s.values = {{"max_sessions", "0"}};
  EXPECT_FALSE(readSettings(s));
  s.values = {{"idle_timeout_seconds", "-5"}};
  EXPECT_FALSE(readSettings(s));

  Host host;
  host.settings.values = {{"max_sessions", "0"}};
  auto plugin = makeTerminalPlugin(host.mock);
  auto started = plugin->start(host.mock);
  EXPECT_FALSE(started);
  EXPECT_EQ(started.message(), "settings.max_sessions must be a positive integer");
}

TEST(TerminalPluginPolicy, WebSocketServiceFollowsPtyConnect) {
  Host host;
  TerminalPlugin plugin(host.mock);
  ASSERT_TRUE(plugin.start(host.mock));
  EXPECT_EQ(plugin.wsPort(), 0);  // not started before the policy is in force

  plugin.policyApplied();
  const int port = plugin.wsPort();
  ASSERT_GT(port, 0);
  EXPECT_TRUE(listening(port));

  host.policy.enabled = false;
  host.policy.rule = "policy:endpoints.pty_connect";
  plugin.policyApplied();
  EXPECT_FALSE(listening(port));
  EXPECT_EQ(plugin.wsPort(), port);  // URLs keep naming the last port

  host.policy.enabled = true;
  plugin.policyApplied();
  EXPECT_EQ(plugin.wsPort(), port);  // port 0: the same port again when free
  EXPECT_TRUE(listening(port));
  plugin.stop();
  EXPECT_FALSE(listening(port));
}

TEST(TerminalPluginPolicy, ConfiguredPortIsUsed) {
  Host host;
  // Find a free port, then configure it.
  int free_port;
  {
    Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
    free_port = probe.address().port();
  }
  host.info.pty_port = free_port;
  TerminalPlugin plugin(host.mock);
  ASSERT_TRUE(plugin.start(host.mock));
  EXPECT_EQ(plugin.wsPort(), free_port);  // named in URLs even before it listens
  plugin.policyApplied();
  EXPECT_TRUE(listening(free_port));
  plugin.stop();
}

}  // namespace
}  // namespace abx::plugins::terminal
