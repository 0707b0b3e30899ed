// Integration: --access-log / ABX_ACCESS_LOG on the real server — one line
// per request (404s and refusals too), the path without its query, the
// request id, no token; JSON with ABX_LOG_FORMAT=json; a file that cannot be
// opened stops start-up.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "access-log-token-5150";

ServerOptions loggedServer(const std::string& format) {
  ServerOptions o;
  o.files = {{"plugins.yaml",
              "plugins:\n  - name: echo\n    file: " + fixtureDir() + "/abx_test_echo.so\n"}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--access-log", "{dir}/access.log"};
  o.env = {{"ABX_SERVER_TOKEN", kToken}, {"ABX_LOG_FORMAT", format}};
  return o;
}

// The log's lines once it has @p count of them (or after 5 s): a request's
// line is written after its answer went out, so it may trail the client.
std::vector<std::string> lines(const std::string& path, std::size_t count) {
  std::vector<std::string> out;
  for (int i = 0; i < 100; ++i) {
    out.clear();
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    if (out.size() >= count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return out;
}

TEST(AccessLog, OneTextLinePerRequestWithoutQueryOrToken) {
  ServerProcess server(loggedServer("text"));
  const std::string file = server.dir() + "/access.log";
  const std::vector<std::pair<std::string, std::string>> auth = {{"X-Access-Token", kToken}};
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/nowhere?ticket=query-secret").status, 404);
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1", "", {{"X-Access-Token", "wrong"}}).status,
            401);
  auto ok = http(server.port(), "POST", "/echo?note=query-secret", R"({"a":1})",
                 {{"X-Access-Token", kToken}, {"X-Request-Id", "trace-77"}});
  EXPECT_EQ(ok.status, 200);

  auto log = lines(file, 4);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_THAT(
      log[0],
      ::testing::MatchesRegex(
          R"(127\.0\.0\.1 anonymous \[[0-9T:.-]+Z\] "GET /health" 200 [0-9.]+ [0-9a-f]{32} health)"));
  EXPECT_THAT(log[1], HasSubstr(R"("GET /nowhere" 404 )"));
  EXPECT_THAT(log[1], ::testing::EndsWith(" -"));  // no endpoint before routing
  EXPECT_THAT(log[2], HasSubstr(R"(127.0.0.1 - [)"));
  EXPECT_THAT(log[2], HasSubstr(R"("GET /echo/items/1" 401 )"));
  EXPECT_THAT(log[3], HasSubstr(R"( legacy [)"));
  EXPECT_THAT(log[3], HasSubstr(R"("POST /echo" 200 )"));
  EXPECT_THAT(log[3], ::testing::EndsWith(" trace-77 echo_post"));
  for (const auto& line : log) {
    EXPECT_THAT(line, Not(HasSubstr("query-secret")));
    EXPECT_THAT(line, Not(HasSubstr(kToken)));
  }
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(AccessLog, JsonLinesWithAbxLogFormatJson) {
  ServerProcess server(loggedServer("json"));
  EXPECT_EQ(http(server.port(), "GET", "/health", "", {{"X-Request-Id", "json-1"}}).status, 200);
  auto log = lines(server.dir() + "/access.log", 1);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_THAT(log[0],
              ::testing::MatchesRegex(
                  R"(\{"time":"[0-9T:.-]+Z","remote":"127\.0\.0\.1","identity":"anonymous",)"
                  R"("method":"GET","path":"/health","status":200,"duration_ms":[0-9.]+,)"
                  R"("request_id":"json-1","endpoint":"health"\})"));
}

TEST(AccessLog, AFileThatCannotBeOpenedStopsStartUp) {
  auto o = loggedServer("text");
  o.args = {"--plugins", "{dir}/plugins.yaml", "--access-log", "{dir}/missing-dir/access.log"};
  o.expect_ready = false;
  ServerProcess server(o);
  ASSERT_EQ(server.waitExit(std::chrono::seconds(10)), 2);
  EXPECT_THAT(server.stderrText(), HasSubstr("--access-log: cannot open"));
}

}  // namespace
}  // namespace abx::testing
