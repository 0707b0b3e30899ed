// Integration: the commands plugin in the real server with the shipped
// config/commands.yaml (the `hello` example) and a temporary commands file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

std::string manifestWith(const std::string& commands_file) {
  return "plugins:\n  - name: commands\n    file: abx_commands.so\n    id: abx.commands\n"
         "    settings:\n      commands_file: " +
         commands_file + "\n";
}

TEST(CommandsPlugin, ShippedHelloExample) {
  ServerProcess server({manifestWith(sourceDir() + "/config/commands.yaml")});
  auto list = http(server.port(), "GET", "/commands");
  EXPECT_EQ(list.status, 200);
  EXPECT_THAT(list.body,
              HasSubstr(R"({"name":"name","type":"string","required":false,"default":"World")"));
  auto hi = http(server.port(), "POST", "/commands/hello", R"({"name":"Qoder"})");
  EXPECT_EQ(hi.status, 200);
  EXPECT_EQ(hi.body, R"({"result":"Hello, Qoder!"})");
  EXPECT_EQ(http(server.port(), "POST", "/commands/hello", "").body,
            R"({"result":"Hello, World!"})");
  auto unknown = http(server.port(), "POST", "/commands/nope", "{}");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(unknown.body, HasSubstr(R"("error":"Unknown command 'nope'; available: hello")"));
  auto bad = http(server.port(), "POST", "/commands/hello", R"({"nom":"x"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr(R"("type":"ValueError")"));
}

TEST(CommandsPlugin, ArgumentsStayOneArgvElementAndFailuresAre500) {
  ServerProcess probe;  // only for a temp dir that outlives the next server
  std::string file = probe.dir() + "/cmds.yaml";
  std::ofstream(file) << R"(commands:
  - name: say
    argv: ["/bin/echo", "{text}"]
    args:
      - {name: text, type: string, required: true}
  - name: fail
    argv: ["/bin/sh", "-c", "echo broken >&2; exit 3"]
  - name: secret
    argv: ["/bin/echo", "hidden"]
    hidden: true
)";
  ServerProcess server({manifestWith(file)});
  auto say = http(server.port(), "POST", "/commands/say", R"j({"text":"a b; rm -rf / $(id)"})j");
  EXPECT_EQ(say.status, 200);
  EXPECT_EQ(say.body, R"j({"result":"a b; rm -rf / $(id)"})j");
  auto missing = http(server.port(), "POST", "/commands/say", "{}");
  EXPECT_EQ(missing.status, 400);
  auto fail = http(server.port(), "POST", "/commands/fail", "{}");
  EXPECT_EQ(fail.status, 500);
  EXPECT_THAT(fail.body, HasSubstr("exited with code 3"));
  EXPECT_THAT(fail.body, HasSubstr("broken"));
  EXPECT_THAT(fail.body, HasSubstr(R"("type":"CommandError")"));
  auto list = http(server.port(), "GET", "/commands");
  EXPECT_THAT(list.body, ::testing::Not(HasSubstr("secret")));
  EXPECT_EQ(http(server.port(), "POST", "/commands/secret", "{}").body, R"({"result":"hidden"})");
}

TEST(CommandsPlugin, ABrokenCommandsFileStopsStartup) {
  ServerProcess probe;
  std::string file = probe.dir() + "/bad.yaml";
  std::ofstream(file) << "commands:\n  - name: x\n    argv: [\"/bin/echo\", \"{undeclared}\"]\n";
  ServerProcess server({manifestWith(file), {}, {}, false});
  auto code = server.waitExit(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_THAT(server.stderrText(), HasSubstr("abx_commands.so: start:"));
  EXPECT_THAT(server.stderrText(), HasSubstr("undeclared"));
}

TEST(CommandsPlugin, PolicyMaxDurationStopsACommandBeforeItsOwnTimeout) {
  ServerOptions o;
  o.files["plugins.yaml"] = manifestWith("{dir}/cmds.yaml");
  o.files["cmds.yaml"] =
      "commands:\n  - name: nap\n    argv: [\"/bin/sleep\", \"5\"]\n    timeout_seconds: 30\n";
  o.files["policy.yaml"] = "endpoints:\n  commands_run:\n    limits: {max_duration_seconds: 1}\n";
  o.args = {"--plugins", "{dir}/plugins.yaml", "--policy", "{dir}/policy.yaml"};
  ServerProcess server(o);
  const auto start = std::chrono::steady_clock::now();
  auto r = http(server.port(), "POST", "/commands/nap", "{}");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr("Command 'nap' stopped at the policy's "
                                "limits.max_duration_seconds (1 s)"));
  EXPECT_THAT(r.body, HasSubstr(R"("type":"TimeoutError")"));
}

}  // namespace
}  // namespace abx::testing
