// What the plugin registers: the `system` group (not opt-in) and six routes
// with the DESIGN.md endpoint ids and scopes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "abx/sdk/testing/fake_host.h"
#include "system_plugin.h"

namespace abx::plugins::system {
namespace {

TEST(SystemPluginStart, RegistersTheGroupAndSixRoutes) {
  sdk::testing::FakeHost host{"/nonexistent/base"};
  host.env.vars = {{"LANG", "C"}, {"PATH", "/usr/bin:/bin"}};
  const auto& routes = host.routes;

  auto plugin = makeSystemPlugin(host.mock);
  ASSERT_TRUE(plugin->start(host.mock));
  ASSERT_EQ(routes.groups.size(), 1u);
  EXPECT_EQ(routes.groups[0].name, "system");
  EXPECT_FALSE(routes.groups[0].opt_in);

  struct Expected {
    const char *method, *path, *endpoint, *scope;
  };
  const Expected expected[] = {{"GET", "/system/info", "system_info", "system:read"},
                               {"GET", "/env", "env_get", "system:read"},
                               {"POST", "/env", "env_set", "system:write"},
                               {"GET", "/ports", "ports", "system:read"},
                               {"GET", "/packages", "packages", "system:read"},
                               {"GET", "/system/metrics", "system_metrics", "system:read"}};
  ASSERT_EQ(routes.routes.size(), std::size(expected));
  for (std::size_t i = 0; i < routes.routes.size(); ++i) {
    const auto& r = routes.routes[i];
    EXPECT_EQ(r.method, expected[i].method);
    EXPECT_EQ(r.path, expected[i].path);
    EXPECT_EQ(r.endpoint, expected[i].endpoint);
    EXPECT_EQ(r.group, "system");
    EXPECT_EQ(r.scopes, std::vector<std::string>{expected[i].scope});
    EXPECT_TRUE(r.auth_required);
    EXPECT_FALSE(r.streaming);
    EXPECT_TRUE(r.handler);
    EXPECT_FALSE(r.summary.empty());
  }

  // The handlers work against the host's environment; the base dir that
  // does not exist falls back to "/".
  auto env_get = routes.routes[1].handler(sdk::testing::makeRequest("GET", "/env"));
  EXPECT_EQ(env_get.body, R"({"variables":{"LANG":"C","PATH":"/usr/bin:/bin"}})");
  auto metrics = routes.routes[5].handler(sdk::testing::makeRequest("GET", "/system/metrics"));
  EXPECT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.body, ::testing::Not(::testing::HasSubstr(R"("disk_total_gb":0.0)")));
}

}  // namespace
}  // namespace abx::plugins::system
