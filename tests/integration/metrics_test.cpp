// Integration: GET /metrics on the real server. A mixed workload (probes, a
// 404, an unreadable request head, a call the policy denies, failed
// authentication, a file written and read, a command, a background process,
// an agent turn of the fake agent, a policy reload) moves the counters by
// exactly what it did, between two scrapes; `promtool check metrics` accepts
// the exposition; the route needs the scope metrics:read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "abx/sdk/version.h"
#include "plugins/files/files_test_support.h"
#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

constexpr const char* kOps = "ops-token-metrics-1";
constexpr const char* kReader = "reader-token-metrics-2";

ServerOptions metricsServer() {
  auto o = fakeAgentsServer(kFakeAgentYaml, kOps);
  o.manifest = *o.manifest +
               "  - name: files\n    file: abx_files.so\n"
               "  - name: process\n    file: abx_process.so\n";
  o.env.erase("ABX_SERVER_TOKEN");
  o.env["OPS_TOKEN"] = kOps;
  o.env["READER_TOKEN"] = kReader;
  o.files["policy.yaml"] =
      "auth:\n  tokens:\n"
      "    - {id: ops, token_env: OPS_TOKEN, scopes: [\"*\"]}\n"
      "    - {id: reader, token_env: READER_TOKEN, scopes: [\"files:read\"]}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  return o;
}

using Headers = std::vector<std::pair<std::string, std::string>>;
Headers token(const std::string& t) { return {{"X-Access-Token", t}}; }

// The value of the sample whose line starts with @p series (name and
// labels exactly as exposed); 0 when there is none (a counter not yet touched).
double sample(const std::string& text, const std::string& series) {
  const std::string key = series + " ";
  for (std::size_t at = 0; at < text.size();) {
    const auto end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? end : end - at);
    if (line.compare(0, key.size(), key) == 0) return std::stod(line.substr(key.size()));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return 0;
}

bool hasSeries(const std::string& text, const std::string& series) {
  return text.find("\n" + series + " ") != std::string::npos;
}

// Calls through this count the connections the test opened.
struct Client {
  int port;
  int calls = 0;
  HttpResult operator()(const std::string& method, const std::string& target,
                        const std::string& body = "", const Headers& headers = {}) {
    ++calls;
    return http(port, method, target, body, headers);
  }
};

std::string requests(const std::string& endpoint, const std::string& method, int status) {
  return "abx_http_requests_total{endpoint=\"" + endpoint + "\",method=\"" + method +
         "\",status=\"" + std::to_string(status) + "\"}";
}

// Runs promtool on @p exposition: its output and exit code, or nullopt
// when promtool is not installed.
std::optional<std::pair<int, std::string>> promtool(const std::string& dir,
                                                    const std::string& exposition) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) return std::nullopt;
  const std::string file = dir + "/scrape.txt";
  std::ofstream(file) << exposition;
  std::string out;
  FILE* p = ::popen(("promtool check metrics < " + file + " 2>&1").c_str(), "r");
  if (!p) return std::nullopt;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) out.append(buffer, n);
  const int status = ::pclose(p);
  return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
}

void waitForLog(ServerProcess& server, const std::string& text) {
  for (int i = 0; i < 200; ++i) {
    if (server.stderrText().find(text) != std::string::npos) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "no log line with: " << text;
}

TEST(Metrics, CountersMoveByExactlyTheWorkloadAndPromtoolAcceptsTheScrape) {
  ServerProcess server(metricsServer());
  Client call{server.port()};
  const HttpResult first = call("GET", "/metrics", "", token(kOps));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string before = first.body;
  const int connections_before = call.calls;

  for (int i = 0; i < 3; ++i) ASSERT_EQ(call("GET", "/health").status, 200);
  ASSERT_EQ(call("GET", "/no/such/route").status, 404);
  // Methods the server does not serve are one label value, whatever a caller
  // sends: distinct ones must not use up the series cap.
  ASSERT_EQ(call("BREW", "/health").status, 501);
  ASSERT_EQ(call("XATTACK", "/health").status, 501);
  ++call.calls;  // a request line the HTTP layer cannot read, on a connection of its own
  EXPECT_THAT(rawHttp(server.port(), "NOT A REQUEST LINE\r\n\r\n"), HasSubstr(" 400 "));
  ASSERT_EQ(call("POST", "/shell", R"({"command":"true"})", token(kReader)).status, 403);
  ASSERT_EQ(call("GET", "/capabilities").status, 401);
  ASSERT_EQ(call("GET", "/capabilities", "", token("not-a-token")).status, 401);
  ASSERT_EQ(call("POST", "/upload", uploadBody("metrics-note.txt", "hello"), token(kOps)).status,
            200);
  const auto read = call("GET", "/download?path=metrics-note.txt", "", token(kOps));
  ASSERT_EQ(read.status, 200);
  EXPECT_THAT(read.body, HasSubstr(b64("hello")));
  ASSERT_EQ(call("POST", "/shell", R"({"command":"echo hi"})", token(kOps)).status, 200);
  ASSERT_EQ(call("POST", "/process/start", R"({"command":"sleep 60"})", token(kOps)).status, 200);
  const auto turn =
      call("POST", "/v1/responses", R"({"model":"fake","input":"hi"})", bearerJson(kOps));
  ASSERT_EQ(turn.status, 200) << turn.body;
  ::kill(server.pid(), SIGHUP);
  waitForLog(server, "reloaded (revision 2)");

  const HttpResult second = call("GET", "/metrics", "", token(kOps));
  ASSERT_EQ(second.status, 200);
  const std::string& after = second.body;
  auto moved = [&](const std::string& series) {
    return sample(after, series) - sample(before, series);
  };
  EXPECT_EQ(moved(requests("health", "GET", 200)), 3);
  EXPECT_EQ(moved("abx_http_request_duration_seconds_count{endpoint=\"health\"}"), 3);
  EXPECT_EQ(moved(requests("none", "GET", 404)), 1);
  EXPECT_EQ(moved(requests("none", "other", 501)), 2);
  EXPECT_THAT(after, Not(HasSubstr("method=\"BREW\"")));
  EXPECT_EQ(moved("abx_http_refusals_total{reason=\"malformed_head\"}"), 1);
  EXPECT_EQ(moved(requests("shell", "POST", 403)), 1);
  EXPECT_EQ(moved(requests("shell", "POST", 200)), 1);
  EXPECT_EQ(moved(requests("capabilities", "GET", 401)), 2);
  EXPECT_EQ(moved(requests("upload", "POST", 200)), 1);
  EXPECT_EQ(moved(requests("download", "GET", 200)), 1);
  EXPECT_EQ(moved(requests("process_start", "POST", 200)), 1);
  EXPECT_EQ(moved(requests("responses_create", "POST", 200)), 1);
  EXPECT_EQ(moved(requests("metrics", "GET", 200)), 1);  // the first scrape
  EXPECT_EQ(moved("abx_policy_denials_total{rule=\"scopes\",code=\"missing_scope\"}"), 1);
  EXPECT_EQ(moved("abx_auth_failures_total{reason=\"missing_token\"}"), 1);
  EXPECT_EQ(moved("abx_auth_failures_total{reason=\"invalid_token\"}"), 1);
  EXPECT_EQ(moved("abx_policy_reloads_total{result=\"ok\"}"), 1);
  EXPECT_EQ(moved("abx_policy_reloads_total{result=\"error\"}"), 0);
  EXPECT_EQ(moved("abx_http_connections_accepted_total"), call.calls - connections_before);
  EXPECT_EQ(sample(after, "abx_http_requests_in_flight"), 1);  // this scrape
  EXPECT_GE(sample(after, "abx_http_connections_open"), 1);
  EXPECT_EQ(moved("abx_process_background_started_total"), 1);
  EXPECT_EQ(sample(after, "abx_process_background_running"), 1);
  EXPECT_EQ(moved("abx_agent_turns_finished_total{runtime=\"command\",outcome=\"completed\"}"), 1);
  EXPECT_EQ(moved("abx_agent_turn_duration_seconds_count{runtime=\"command\"}"), 1);
  EXPECT_EQ(sample(after, "abx_agent_turns_running"), 0);
  EXPECT_EQ(sample(after, "abx_agent_turns_queued"), 0);
  EXPECT_TRUE(hasSeries(after, "abx_agent_sessions"));
  EXPECT_TRUE(hasSeries(after, "abx_agent_session_subscribers"));
  for (const char* plugin : {"agents", "adapter_command", "files", "process"})
    EXPECT_EQ(sample(after, "abx_plugin_up{plugin=\"" + std::string(plugin) + "\"}"), 1) << plugin;
  const std::string abi =
      std::to_string(ABX_SDK_ABI_MAJOR) + "." + std::to_string(ABX_SDK_ABI_MINOR);
  EXPECT_EQ(sample(after, "abx_build_info{version=\"0.1.0\",abi=\"" + abi + "\"}"), 1);
  EXPECT_THAT(after, HasSubstr("# TYPE abx_http_request_duration_seconds histogram\n"));
  EXPECT_THAT(after, HasSubstr("abx_http_request_duration_seconds_bucket{endpoint=\"health\","
                               "le=\"+Inf\"} "));

  auto checked = promtool(server.dir(), after);
  if (!checked) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL() << "promtool is not installed (apt-get prometheus)";
    GTEST_SKIP() << "promtool is not installed: the exposition was not checked";
  }
  EXPECT_EQ(checked->first, 0) << checked->second;
  EXPECT_EQ(checked->second, "") << "promtool reported problems";
}

TEST(Metrics, NeedsTheMetricsReadScope) {
  ServerProcess server(metricsServer());
  const auto denied = http(server.port(), "GET", "/metrics", "", token(kReader));
  EXPECT_EQ(denied.status, 403);
  EXPECT_THAT(denied.body, HasSubstr(R"("code":"missing_scope")"));
  EXPECT_THAT(denied.body, HasSubstr(R"("scope":"metrics:read")"));
  EXPECT_EQ(http(server.port(), "GET", "/metrics").status, 401);
  EXPECT_EQ(http(server.port(), "GET", "/metrics", "", token(kOps)).status, 200);
}

}  // namespace
}  // namespace abx::testing
