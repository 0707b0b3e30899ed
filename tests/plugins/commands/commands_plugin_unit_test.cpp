// CommandsPlugin::start() against a mocked HostContext: the group, the two
// routes, loading the commands file into the host registry, and load errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "abx/sdk/testing/fake_host.h"
#include "commands_plugin.h"
#include "commands_requests.h"

namespace abx::plugins::commands {
namespace {

using testing::runRequest;

class CommandsPluginStart : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx_commands_plugin_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir = tmpl;
    settings.manifest_dir = dir;
  }
  void TearDown() override {
    std::remove((dir + "/commands.yaml").c_str());
    ::rmdir(dir.c_str());
  }
  void writeCommands(const std::string& text) {
    std::ofstream(dir + "/commands.yaml") << text;
    settings.values["commands_file"] = "commands.yaml";  // relative to manifest_dir
  }
  sdk::Status start() {
    plugin = makeCommandsPlugin(host.mock);
    return plugin->start(host.mock);
  }
  sdk::Response call(const char* endpoint, const sdk::Request& request) {
    return routes.byId(endpoint).handler(request);
  }

  sdk::testing::FakeHost host;
  sdk::testing::RecordingRoutes& routes = host.routes;
  sdk::testing::FakeCommandRegistry& registry = host.commands;
  sdk::Settings& settings = host.settings;
  std::string dir;
  std::unique_ptr<sdk::Plugin> plugin;
};

TEST_F(CommandsPluginStart, DeclaresTheGroupAndBothRoutes) {
  ASSERT_TRUE(start());
  ASSERT_EQ(routes.groups.size(), 1u);
  EXPECT_EQ(routes.groups[0].name, "commands");
  EXPECT_FALSE(routes.groups[0].opt_in);
  ASSERT_EQ(routes.routes.size(), 2u);
  const auto& list = routes.routes[0];
  EXPECT_EQ(list.method, "GET");
  EXPECT_EQ(list.path, "/commands");
  EXPECT_EQ(list.endpoint, "commands_list");
  EXPECT_EQ(list.group, "commands");
  EXPECT_TRUE(list.scopes.empty());  // per-command scopes are checked by the handler
  EXPECT_TRUE(list.auth_required);
  EXPECT_FALSE(list.streaming);
  const auto& run = routes.routes[1];
  EXPECT_EQ(run.method, "POST");
  EXPECT_EQ(run.path, "/commands/{name}");
  EXPECT_EQ(run.endpoint, "commands_run");
  EXPECT_EQ(run.group, "commands");
  EXPECT_TRUE(run.scopes.empty());
  EXPECT_TRUE(registry.list().empty());
}

TEST_F(CommandsPluginStart, LoadsTheCommandsFileIntoTheHostRegistry) {
  writeCommands(R"(commands:
  - name: hello
    description: Say hello.
    argv: ["/bin/echo", "Hello, {name}!"]
    args:
      - {name: name, type: string, required: false, default: World, description: Who to greet}
)");
  ASSERT_TRUE(start());
  ASSERT_NE(registry.find("hello"), nullptr);
  auto r = call("commands_run", runRequest("hello", R"({"name":"Qoder"})"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"result":"Hello, Qoder!"})");
  auto d = call("commands_run", runRequest("hello", "{}"));
  EXPECT_EQ(d.body, R"({"result":"Hello, World!"})");
  auto hostile = call("commands_run", runRequest("hello", R"({"name":"a b; rm -rf /"})"));
  EXPECT_EQ(hostile.body, R"({"result":"Hello, a b; rm -rf /!"})");
  auto list = call("commands_list", testing::makeRequest("GET", "/commands"));
  EXPECT_EQ(
      list.body,
      R"({"commands":[{"name":"hello","description":"Say hello.","args":[{"name":"name","type":"string","required":false,"default":"World","description":"Who to greet"}]}]})");
}

TEST_F(CommandsPluginStart, HandlersSeeCommandsRegisteredAfterStart) {
  ASSERT_TRUE(start());
  sdk::CommandSpec late;
  late.name = "late";
  late.fn = [](const sdk::CommandArgs&) -> sdk::Result<std::string> { return std::string("2"); };
  ASSERT_TRUE(registry.add(late));
  EXPECT_EQ(call("commands_run", runRequest("late")).body, R"({"result":2})");
}

TEST_F(CommandsPluginStart, ALoadErrorFailsStartNamingTheFile) {
  writeCommands("commands:\n  - {name: x, argv: [echo, '{y}']}\n");
  auto s = start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.type(), "ValueError");
  EXPECT_EQ(s.message(),
            dir + "/commands.yaml:2: command 'x': placeholder '{y}' is not a declared arg");
}

TEST_F(CommandsPluginStart, AMissingFileFailsStart) {
  settings.values["commands_file"] = "absent.yaml";
  auto s = start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "Cannot read commands file '" + dir + "/absent.yaml'");
}

TEST_F(CommandsPluginStart, ANameTakenByAnotherPluginFailsStart) {
  sdk::CommandSpec other;
  other.name = "hello";
  ASSERT_TRUE(registry.add(other));
  writeCommands("commands:\n  - {name: hello, argv: [echo]}\n");
  auto s = start();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.type(), "ValueError");
  EXPECT_EQ(s.message(),
            dir + "/commands.yaml: command 'hello': command 'hello' is already registered");
}

}  // namespace
}  // namespace abx::plugins::commands
