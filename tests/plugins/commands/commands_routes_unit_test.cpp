// GET /commands and POST /commands/{name}: exact bodies for 200, 400, 404
// and 500, scope filtering, hidden commands, and registry reads per request.
#include <gtest/gtest.h>

#include <stdexcept>

#include "abx/sdk/testing/fakes.h"
#include "commands_requests.h"
#include "commands_routes.h"

namespace abx::plugins::commands {
namespace {

using sdk::ArgType;
using sdk::CommandValue;
using sdk::testing::FakeCommandRegistry;
using testing::makeRequest;
using testing::runRequest;

sdk::CommandSpec hello() {
  sdk::CommandSpec c;
  c.name = "hello";
  c.description = "Say hello.";
  c.args = {{"name", ArgType::string, false, CommandValue(std::string("World")), "Who to greet"}};
  c.fn = [](const sdk::CommandArgs& args) -> sdk::Result<std::string> {
    return sdk::jsonQuote("Hello, " + std::get<std::string>(args.at("name")) + "!");
  };
  return c;
}

sdk::CommandSpec named(std::string name, std::vector<std::string> scopes = {},
                       bool hidden = false) {
  sdk::CommandSpec c;
  c.name = std::move(name);
  c.scopes = std::move(scopes);
  c.hidden = hidden;
  c.fn = [](const sdk::CommandArgs&) -> sdk::Result<std::string> { return std::string("1"); };
  return c;
}

class CommandsRoutes : public ::testing::Test {
 protected:
  void add(sdk::CommandSpec c) { ASSERT_TRUE(registry.add(std::move(c))); }
  FakeCommandRegistry registry;
};

TEST_F(CommandsRoutes, ListShowsEveryFieldWithTypedDefaults) {
  add(hello());
  sdk::CommandSpec typed = named("typed");
  typed.args = {{"n", ArgType::integer, true, std::nullopt, ""},
                {"f", ArgType::floating, false, CommandValue(2.0), "ratio"},
                {"b", ArgType::boolean, false, CommandValue(false), ""},
                {"i", ArgType::integer, false, CommandValue(std::int64_t{5}), ""}};
  add(typed);
  auto r = listCommands(registry, makeRequest("GET", "/commands"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(
      r.body,
      R"({"commands":[)"
      R"({"name":"hello","description":"Say hello.","args":[{"name":"name","type":"string","required":false,"default":"World","description":"Who to greet"}]},)"
      R"({"name":"typed","description":"","args":[)"
      R"({"name":"n","type":"integer","required":true,"default":null,"description":""},)"
      R"({"name":"f","type":"float","required":false,"default":2.0,"description":"ratio"},)"
      R"({"name":"b","type":"boolean","required":false,"default":false,"description":""},)"
      R"({"name":"i","type":"integer","required":false,"default":5,"description":""}]}]})");
}

TEST_F(CommandsRoutes, ListIsEmptyWithoutCommands) {
  auto r = listCommands(registry, makeRequest("GET", "/commands"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"commands":[]})");
}

TEST_F(CommandsRoutes, ListSkipsHiddenAndCommandsTheCallerMayNotSee) {
  add(named("zeta"));
  add(named("secret", {}, true));
  add(named("admin", {"admin:all"}));
  add(named("both", {"commands:run:both", "ops:read"}));
  add(named("alpha"));
  auto names = [&](std::vector<std::string> scopes) {
    auto r = listCommands(registry, makeRequest("GET", "/commands", "", std::move(scopes)));
    std::string out;
    // Cheap extraction: the order of "name" keys at command level.
    for (const char* n : {"zeta", "secret", "admin", "both", "alpha"})
      if (r.body.find(std::string("{\"name\":\"") + n + "\"") != std::string::npos)
        out += std::string(out.empty() ? "" : ",") + n;
    return out;
  };
  EXPECT_EQ(names({"*"}), "zeta,admin,both,alpha");
  EXPECT_EQ(names({"commands:run"}), "zeta,alpha");
  EXPECT_EQ(names({"commands:run", "admin:all"}), "zeta,admin,alpha");
  EXPECT_EQ(names({"commands:run", "ops:*"}), "zeta,both,alpha");
  EXPECT_EQ(names({"commands:run:alpha"}), "alpha");
  EXPECT_EQ(names({"commands:run:both", "ops:read"}), "both");
  EXPECT_EQ(names({"files:read"}), "");
}

TEST_F(CommandsRoutes, ListKeepsRegistrationOrder) {
  add(named("b"));
  add(named("a"));
  auto r = listCommands(registry, makeRequest("GET", "/commands"));
  EXPECT_EQ(r.body, R"({"commands":[{"name":"b","description":"","args":[]},)"
                    R"({"name":"a","description":"","args":[]}]})");
}

TEST_F(CommandsRoutes, RunHelloWithAndWithoutArgument) {
  add(hello());
  auto r = runCommand(registry, runRequest("hello", R"({"name":"Qoder"})"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"result":"Hello, Qoder!"})");
  auto d = runCommand(registry, runRequest("hello", "{}"));
  EXPECT_EQ(d.status, 200);
  EXPECT_EQ(d.body, R"({"result":"Hello, World!"})");
  auto e = runCommand(registry, runRequest("hello"));
  EXPECT_EQ(e.body, R"({"result":"Hello, World!"})");
}

TEST_F(CommandsRoutes, UnknownCommandIs404ListingVisibleNamesSorted) {
  add(named("zeta"));
  add(named("secret", {}, true));
  add(named("admin", {"admin:all"}));
  add(named("alpha"));
  auto r = runCommand(registry, runRequest("nope", "{}", {"commands:run"}));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body,
            R"({"error":"Unknown command 'nope'; available: alpha, zeta","type":"ValueError"})");
}

TEST_F(CommandsRoutes, UnknownCommandWithEmptyRegistry) {
  auto r = runCommand(registry, runRequest("x"));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"x({"error":"Unknown command 'x'; available: (none)","type":"ValueError"})x");
}

TEST_F(CommandsRoutes, CommandWithoutTheCallersScopesLooksUnknown) {
  add(named("admin", {"admin:all"}));
  add(named("alpha"));
  auto denied = runCommand(registry, runRequest("admin", "{}", {"commands:run"}));
  auto unknown = runCommand(registry, runRequest("nothere", "{}", {"commands:run"}));
  EXPECT_EQ(denied.status, 404);
  EXPECT_EQ(denied.body,
            R"({"error":"Unknown command 'admin'; available: alpha","type":"ValueError"})");
  EXPECT_EQ(unknown.status, denied.status);
  auto allowed = runCommand(registry, runRequest("admin", "{}", {"commands:run", "admin:all"}));
  EXPECT_EQ(allowed.status, 200);
  EXPECT_EQ(allowed.body, R"({"result":1})");
}

TEST_F(CommandsRoutes, HiddenCommandsStillRun) {
  add(named("secret", {}, true));
  auto r = runCommand(registry, runRequest("secret", "{}"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"result":1})");
}

TEST_F(CommandsRoutes, ValidationFailuresAre400) {
  sdk::CommandSpec c = named("count");
  c.args = {{"n", ArgType::integer, true, std::nullopt, ""}};
  add(c);
  auto unknown = runCommand(registry, runRequest("count", R"({"n":1,"m":2})"));
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(
      unknown.body,
      R"({"error":"Unknown parameter 'm' for command 'count'; accepted: n","type":"ValueError"})");
  auto missing = runCommand(registry, runRequest("count", "{}"));
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(
      missing.body,
      R"({"error":"Missing required parameter 'n' for command 'count'","type":"ValueError"})");
  auto bad = runCommand(registry, runRequest("count", R"({"n":4.5})"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body,
            R"({"error":"Parameter 'n' must be an integer, got 4.5","type":"ValueError"})");
}

TEST_F(CommandsRoutes, ArgumentCheckRefusesWith400AndItsCode) {
  sdk::CommandSpec c = named("log");
  c.args = {{"rev", ArgType::string, true, std::nullopt, ""}};
  bool ran = false;
  c.fn = [&ran](const sdk::CommandArgs&) -> sdk::Result<std::string> {
    ran = true;
    return std::string("1");
  };
  add(c);
  ArgumentCheck check = [](const std::string& name,
                           const sdk::CommandArgs& args) -> std::optional<ArgumentRefusal> {
    if (name == "log" && std::get<std::string>(args.at("rev")).starts_with('-'))
      return ArgumentRefusal{"Argument 'rev' begins with '-'", "argument_is_option"};
    return std::nullopt;
  };
  auto refused = runCommand(registry, runRequest("log", R"({"rev":"--output=x"})"), check);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(refused.body, R"({"error":"Argument 'rev' begins with '-'","type":"ValueError",)"
                          R"("code":"argument_is_option"})");
  EXPECT_FALSE(ran);
  EXPECT_EQ(runCommand(registry, runRequest("log", R"({"rev":"HEAD"})"), check).status, 200);
  EXPECT_TRUE(ran);
}

TEST_F(CommandsRoutes, ArgumentsReachTheFunctionTyped) {
  sdk::CommandSpec c = named("echo");
  c.args = {{"n", ArgType::integer, true, std::nullopt, ""},
            {"on", ArgType::boolean, true, std::nullopt, ""}};
  c.fn = [](const sdk::CommandArgs& args) -> sdk::Result<std::string> {
    return "[" + std::to_string(std::get<std::int64_t>(args.at("n"))) + "," +
           (std::get<bool>(args.at("on")) ? "true" : "false") + "]";
  };
  add(c);
  auto r = runCommand(registry, runRequest("echo", R"({"n":"42","on":"No"})"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"result":[42,false]})");
}

TEST_F(CommandsRoutes, FunctionFailureIs500WithItsType) {
  sdk::CommandSpec c = named("fail");
  c.fn = [](const sdk::CommandArgs&) -> sdk::Result<std::string> {
    return sdk::Status::error("disk on fire", "OSError");
  };
  add(c);
  auto r = runCommand(registry, runRequest("fail"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, R"({"error":"disk on fire","type":"OSError"})");
}

TEST_F(CommandsRoutes, ThrowingFunctionIs500RuntimeError) {
  sdk::CommandSpec c = named("throws");
  c.fn = [](const sdk::CommandArgs&) -> sdk::Result<std::string> {
    throw std::runtime_error("boom");
  };
  add(c);
  auto r = runCommand(registry, runRequest("throws"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, R"({"error":"boom","type":"RuntimeError"})");
}

TEST_F(CommandsRoutes, EmptyResultTextIsNull) {
  sdk::CommandSpec c = named("nothing");
  c.fn = [](const sdk::CommandArgs&) -> sdk::Result<std::string> { return std::string(); };
  add(c);
  EXPECT_EQ(runCommand(registry, runRequest("nothing")).body, R"({"result":null})");
}

}  // namespace
}  // namespace abx::plugins::commands
