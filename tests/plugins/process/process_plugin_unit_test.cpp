// What the plugin registers — the `process` group (not opt-in) and eight
// routes with the DESIGN.md ids and scopes — and its handlers against a
// MockHostContext.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <thread>
#include <utility>

#include "abx/sdk/testing/fake_host.h"
#include "process_plugin.h"

namespace abx::plugins::process {
namespace {

using sdk::testing::RecordingStream;
using ::testing::HasSubstr;

class ProcessPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-proc-plugin-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    dir_ = tmpl;
    host_.guard.base = dir_;
    host_.info.base_dir = dir_;
    env_.vars = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
    plugin_ = makeProcessPlugin(host_.mock);
    ASSERT_TRUE(plugin_->start(host_.mock));
  }
  void TearDown() override {
    plugin_->stop();
    std::filesystem::remove_all(dir_);
  }
  sdk::Response call(const std::string& id, std::string body = {},
                     std::map<std::string, std::string> params = {},
                     const sdk::EndpointPolicy* policy = nullptr,
                     std::map<std::string, std::string> query = {}) {
    const auto& route = routes_.byId(id);
    auto request = sdk::testing::makeRequest(route.method, route.path, std::move(body), policy, id);
    for (auto& [k, v] : params) request.path_params[k] = v;
    for (auto& [k, v] : query) request.query[k] = v;
    return route.handler(request);
  }

  std::string dir_;
  sdk::testing::FakeHost host_;
  sdk::testing::RecordingRoutes& routes_ = host_.routes;
  sdk::testing::FakeEnvironment& env_ = host_.env;
  std::unique_ptr<sdk::Plugin> plugin_;
};

TEST_F(ProcessPluginTest, RegistersTheGroupAndEightRoutes) {
  ASSERT_EQ(routes_.groups.size(), 1u);
  EXPECT_EQ(routes_.groups[0].name, "process");
  EXPECT_FALSE(routes_.groups[0].opt_in);
  struct Expected {
    const char *method, *path, *endpoint, *scope;
    bool streaming;
  };
  const Expected expected[] = {
      {"POST", "/shell", "shell", "process:run", false},
      {"POST", "/shell/stream", "shell_stream", "process:run", true},
      {"POST", "/process/start", "process_start", "process:run", false},
      {"GET", "/process/list", "process_list", "process:manage", false},
      {"GET", "/process/{pid}", "process_get", "process:manage", false},
      {"POST", "/process/{pid}/signal", "process_signal", "process:manage", false},
      {"GET", "/process/{pid}/output", "process_output", "process:manage", false},
      {"POST", "/process/{pid}/stdin", "process_stdin", "process:manage", false}};
  ASSERT_EQ(routes_.routes.size(), std::size(expected));
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    const auto& r = routes_.routes[i];
    EXPECT_EQ(r.method, expected[i].method);
    EXPECT_EQ(r.path, expected[i].path);
    EXPECT_EQ(r.endpoint, expected[i].endpoint);
    EXPECT_EQ(r.group, "process");
    EXPECT_EQ(r.scopes, std::vector<std::string>{expected[i].scope});
    EXPECT_TRUE(r.auth_required);
    EXPECT_EQ(r.streaming, expected[i].streaming);
    EXPECT_EQ(static_cast<bool>(r.stream_handler), expected[i].streaming);
    EXPECT_EQ(static_cast<bool>(r.handler), !expected[i].streaming);
    EXPECT_FALSE(r.summary.empty());
  }
}

TEST_F(ProcessPluginTest, ShellRunsInTheBaseDirWithTheHostEnvironment) {
  env_.vars["GREETING"] = "hello";
  auto r = call("shell", R"({"command":"sh -c 'echo $GREETING; pwd; echo e >&2'"})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"stdout":"hello\n)" + dir_ +
                        R"(\n","stderr":"e\n","exit_code":0,"truncated":false})");
  auto missing = call("shell", R"({"command":"no-such-program-xyz"})");
  EXPECT_EQ(missing.status, 500);
  EXPECT_THAT(missing.body, HasSubstr(R"("type":"FileNotFoundError")"));
}

TEST_F(ProcessPluginTest, StreamEventsAndErrors) {
  const auto& route = routes_.byId("shell_stream");
  RecordingStream stream;
  auto request = sdk::testing::makeRequest("POST", "/shell/stream",
                                           R"({"command":"sh -c 'echo a; echo b >&2; exit 2'"})",
                                           nullptr, "shell_stream");
  EXPECT_FALSE(route.stream_handler(request, stream).has_value());
  EXPECT_TRUE(stream.begun);
  const auto events = stream.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], (std::pair<std::string, std::string>{"stdout", R"({"data":"a"})"}));
  EXPECT_EQ(events[1], (std::pair<std::string, std::string>{"stderr", R"({"data":"b"})"}));
  EXPECT_EQ(events[2], (std::pair<std::string, std::string>{"exit", R"({"exit_code":2})"}));

  RecordingStream bad;
  auto bad_request =
      sdk::testing::makeRequest("POST", "/shell/stream", "{}", nullptr, "shell_stream");
  auto reply = route.stream_handler(bad_request, bad);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->status, 400);
  EXPECT_TRUE(bad.received().empty());

  RecordingStream missing;
  auto missing_request = sdk::testing::makeRequest(
      "POST", "/shell/stream", R"({"command":"no-such-program-xyz"})", nullptr, "shell_stream");
  EXPECT_FALSE(route.stream_handler(missing_request, missing).has_value());
  const auto missing_events = missing.events();
  ASSERT_EQ(missing_events.size(), 1u);
  EXPECT_EQ(missing_events[0].first, "error");
  EXPECT_THAT(missing_events[0].second, HasSubstr(R"("type":"FileNotFoundError")"));
}

TEST_F(ProcessPluginTest, BackgroundProcessLifecycle) {
  auto start = call("process_start", R"({"command":"cat"})");
  ASSERT_EQ(start.status, 200) << start.body;
  auto pid_at = start.body.find(":") + 1;
  const std::string pid = start.body.substr(pid_at, start.body.find(',') - pid_at);
  EXPECT_EQ(start.body, R"({"pid":)" + pid + R"(,"command":"cat"})");

  EXPECT_EQ(call("process_stdin", R"({"data":"ping\n","close":true})", {{"pid", pid}}).body,
            R"({"written":5})");
  sdk::Response out;
  for (int i = 0; i < 500; ++i) {
    out = call("process_output", "", {{"pid", pid}});
    if (out.body.find(R"("eof":true)") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(
      out.body,
      R"({"output":"ping\n","next":5,"dropped":0,"state":"exited","exit_code":0,"eof":true})");
  auto got = call("process_get", "", {{"pid", pid}});
  EXPECT_THAT(got.body, HasSubstr(R"("state":"exited")"));
  EXPECT_THAT(got.body, HasSubstr(R"("exit_code":0)"));
  EXPECT_THAT(call("process_list").body, HasSubstr(R"("pid":)" + pid));
  EXPECT_EQ(call("process_get", "", {{"pid", "abc"}}).status, 400);
  EXPECT_EQ(call("process_get", "", {{"pid", "1"}}).status, 404);
  EXPECT_EQ(call("process_signal", R"({"signal":15})", {{"pid", "1"}}).status, 403);
  EXPECT_EQ(call("process_signal", R"({"signal":15})", {{"pid", pid}}).status, 409);
  EXPECT_EQ(call("process_stdin", R"({"data":"x"})", {{"pid", pid}}).status, 409);
}

TEST_F(ProcessPluginTest, OutputAnswersHoldAtMostOneMebibyte) {
  sdk::EndpointPolicy big_ring;
  big_ring.limits.max_output_bytes = 4u << 20;
  auto start =
      call("process_start", R"({"command":["sh","-c","yes | head -c 1500000"]})", {}, &big_ring);
  ASSERT_EQ(start.status, 200) << start.body;
  const auto pid = std::to_string(*sdk::Json::parse(start.body)->integer("pid"));
  auto read = [&](std::uint64_t after) {
    auto r =
        call("process_output", "", {{"pid", pid}}, nullptr, {{"after", std::to_string(after)}});
    EXPECT_EQ(r.status, 200) << r.body;
    return *sdk::Json::parse(r.body);
  };
  sdk::Json first;
  for (int i = 0; i < 500; ++i) {
    first = read(0);
    if (*first.integer("next") == (1 << 20)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(*first.integer("next"), 1 << 20);
  EXPECT_FALSE(*first.boolean("eof"));
  sdk::Json rest;
  for (int i = 0; i < 500; ++i) {
    rest = read(1u << 20);
    if (*rest.boolean("eof")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(*rest.boolean("eof"));
  EXPECT_EQ(*rest.integer("next"), 1500000);
  EXPECT_EQ(rest.string("output")->size(), 1500000u - (1u << 20));
}

}  // namespace
}  // namespace abx::plugins::process
