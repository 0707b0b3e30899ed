// Integration: the server adopts and reaps the orphans its commands leave
// (it is a child subreaper, so this holds whether or not it runs as PID 1),
// and reaping them never takes an exit code a command's owner waits for.
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "plugins/process/process_test_support.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using std::chrono::milliseconds;

ServerOptions processServer() {
  ServerOptions o;
  o.manifest = "plugins:\n  - name: process\n    file: abx_process.so\n    id: abx.process\n";
  return o;
}

Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

/** POST /shell with @p script run by sh -c; the parsed answer. */
Poco::JSON::Object::Ptr shell(const ServerProcess& server, const std::string& script) {
  Poco::JSON::Object request;
  Poco::JSON::Array::Ptr argv = new Poco::JSON::Array;
  argv->add("sh");
  argv->add("-c");
  argv->add(script);
  request.set("command", argv);
  std::ostringstream body;
  request.stringify(body);
  auto r = http(server.port(), "POST", "/shell", body.str());
  EXPECT_EQ(r.status, 200) << r.body;
  return object(r.status == 200 ? r.body : R"({"stdout":"","exit_code":-1000})");
}

TEST(ProcessOrphans, AGrandchildThatLeftItsSessionIsAdoptedThenReaped) {
  ServerProcess server(processServer());
  // The grandchild leaves the command's session, so the command's group
  // sweep does not reach it; its parent exits at once and it outlives it.
  auto answer = shell(server, "setsid sleep 1 </dev/null >/dev/null 2>&1 & echo $!");
  ASSERT_EQ(answer->getValue<int>("exit_code"), 0);
  const int orphan = std::stoi(answer->getValue<std::string>("stdout"));
  const auto adopted = procStat(orphan);
  ASSERT_TRUE(adopted) << "the grandchild ended before it could be seen";
  EXPECT_NE(adopted->state, 'Z');
  EXPECT_EQ(adopted->ppid, server.pid()) << "reparented past the server";
  EXPECT_TRUE(eventually([&] { return !procStat(orphan); })) << "left a zombie";
  EXPECT_THAT(zombieChildren(server.pid()), ::testing::IsEmpty());
}

TEST(ProcessOrphans, AGrandchildKilledByTheGroupSweepIsReaped) {
  ServerProcess server(processServer());
  // The subshell exits at once; the sleep it started stays in the group and
  // dies in the sweep that ends the command, an orphan already.
  auto answer = shell(server, "(sleep 0.3 & echo $!); exit 0");
  ASSERT_EQ(answer->getValue<int>("exit_code"), 0);
  const int orphan = std::stoi(answer->getValue<std::string>("stdout"));
  if (const auto seen = procStat(orphan)) {
    EXPECT_EQ(seen->ppid, server.pid());
  }
  EXPECT_TRUE(eventually([&] { return !procStat(orphan); })) << "left a zombie";
  EXPECT_THAT(zombieChildren(server.pid()), ::testing::IsEmpty());
}

// Orphans exit all the time here, so the reaper runs while the commands'
// own children exit: not one exit code may go missing.
TEST(ProcessOrphans, ExitCodesStayRightWhileOrphansAreReaped) {
  ServerProcess server(processServer());
  constexpr int kRounds = 50;
  std::atomic<int> background_checked{0};
  std::thread background([&] {
    for (int i = 0; i < kRounds; ++i) {
      const int code = i % 100 + 1;
      Poco::JSON::Object request;
      request.set("command", "sh -c 'setsid true </dev/null >/dev/null 2>&1 & exit " +
                                 std::to_string(code) + "'");
      std::ostringstream body;
      request.stringify(body);
      auto start = http(server.port(), "POST", "/process/start", body.str());
      ASSERT_EQ(start.status, 200) << start.body;
      const std::string path =
          "/process/" + std::to_string(object(start.body)->getValue<int>("pid"));
      ASSERT_TRUE(eventually([&] {
        return http(server.port(), "GET", path).body.find(R"("state":"exited")") !=
               std::string::npos;
      }));
      EXPECT_EQ(object(http(server.port(), "GET", path).body)->getValue<int>("exit_code"), code)
          << "round " << i;
      ++background_checked;
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    const int code = (i * 7) % 120 + 1;
    auto answer = shell(
        server, "(true &); setsid true </dev/null >/dev/null 2>&1 & exit " + std::to_string(code));
    EXPECT_EQ(answer->getValue<int>("exit_code"), code) << "round " << i;
  }
  background.join();
  EXPECT_EQ(background_checked.load(), kRounds);
  EXPECT_TRUE(eventually([&] { return zombieChildren(server.pid()).empty(); }))
      << "zombies left behind";
}

}  // namespace
}  // namespace abx::testing
