// Attack: a caller limited by a policy's max_concurrency opens more streams
// than it allows. Streams leave their worker for the event loop; the
// concurrency slot must go with them and be held until the stream ends,
// not until the handler returns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr const char* kToken = "stream-limits-token-4321";
const auto kAuth = bearerJson(kToken);

ServerOptions limitedAgents(const std::string& endpoint) {
  auto o = fakeAgentsServer(R"(agents:
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "300"}
    workspace: {path: "{dir}/work"}
)",
                            kToken);
  o.files["policy.yaml"] = "endpoints:\n  " + endpoint + ": {limits: {max_concurrency: 2}}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  return o;
}

// Sends @p request on a new connection and returns it with the response head read.
int openStream(int port, const std::string& request, std::string& head) {
  int fd = connectLoopback(port);
  if (fd < 0) return -1;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    ::close(fd);
    return -1;
  }
  receiveUntil(fd, head, 5s, [](const std::string& r) { return r.find("\r\n\r\n") != r.npos; });
  return fd;
}

std::string idOf(const std::string& body) {
  auto at = body.find(R"("id":")");
  return at == std::string::npos ? "" : body.substr(at + 6, body.find('"', at + 6) - at - 6);
}

// Two streams are allowed; the third must be refused while they are open,
// and a slot must come back when one of them ends.
void expectTwoStreamsAtMost(int port, const std::string& request) {
  std::vector<int> open;
  for (int i = 0; i < 2; ++i) {
    std::string head;
    open.push_back(openStream(port, request, head));
    ASSERT_THAT(head, HasSubstr("HTTP/1.1 200")) << "stream " << i;
  }
  std::string third;
  int fd = openStream(port, request, third);
  EXPECT_THAT(third, HasSubstr("HTTP/1.1 429")) << "a third stream beyond max_concurrency: 2";
  EXPECT_THAT(third, HasSubstr(R"("code":"concurrency_limited")"));
  ::close(fd);
  ::close(open.back());
  open.pop_back();
  std::string again;
  for (int i = 0; i < 40; ++i) {
    again.clear();
    fd = openStream(port, request, again);
    if (again.find("HTTP/1.1 200") != std::string::npos) break;
    ::close(fd);
    fd = -1;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_THAT(again, HasSubstr("HTTP/1.1 200")) << "the slot of the closed stream came back";
  if (fd >= 0) ::close(fd);
  for (int f : open) ::close(f);
}

TEST(SecurityStreamLimits, SessionTailsStayWithinMaxConcurrency) {
  ServerProcess server(limitedAgents("agent_sessions_events_stream"));
  auto created = http(server.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"slow","environment":{"type":"none"}})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  expectTwoStreamsAtMost(server.port(), "GET /v1/agents/sessions/" + idOf(created.body) +
                                            "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                            "Authorization: Bearer " +
                                            kToken + "\r\n\r\n");
}

TEST(SecurityStreamLimits, ResponseStreamsStayWithinMaxConcurrency) {
  ServerProcess server(limitedAgents("responses_get"));
  auto created = http(server.port(), "POST", "/v1/responses",
                      R"({"model":"slow","input":"take your time","background":true})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  expectTwoStreamsAtMost(server.port(), "GET /v1/responses/" + idOf(created.body) +
                                            "?stream=true HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                            "Authorization: Bearer " +
                                            kToken + "\r\n\r\n");
}

}  // namespace
}  // namespace abx::testing
