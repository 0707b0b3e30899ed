// Integration: agent session tails leave their worker — with more open
// tails than worker threads, /health and other routes still answer, every
// tail still receives its events, the server does not grow a thread per
// tail, a tail whose client hangs up gives its subscriber place back
// without a write, and non-streaming /v1/responses wait for their turns
// without holding workers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
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

constexpr const char* kToken = "detached-token-5678";
const auto kAuth = bearerJson(kToken);

ServerOptions agentsServer(int threads) {
  auto o = fakeAgentsServer(R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "{dir}/work"}
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "150"}
    workspace: {path: "{dir}/work"}
)",
                            kToken);
  o.args = {"--threads", std::to_string(threads)};
  return o;
}

std::string sessionId(const std::string& body) {
  auto at = body.find(R"("id":")");
  return at == std::string::npos ? "" : body.substr(at + 6, body.find('"', at + 6) - at - 6);
}

// Opens a tail on a raw socket and returns once its 200 head arrived.
int openTail(int port, const std::string& id, std::string& received) {
  int fd = connectLoopback(port);
  if (fd < 0) return -1;
  std::string request = "GET /v1/agents/sessions/" + id +
                        "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kToken +
                        "\r\n\r\n";
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) return -1;
  receiveUntil(fd, received, 5s, [](const std::string& r) { return r.find("\r\n\r\n") != r.npos; });
  return fd;
}

// Reads what is ready on every tail until each has @p needle or the deadline.
void readUntil(std::vector<int>& fds, std::vector<std::string>& texts, const std::string& needle,
               std::chrono::milliseconds wait) {
  const auto deadline = Clock::now() + wait;
  char buf[16384];
  while (Clock::now() < deadline) {
    bool all = true;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (texts[i].find(needle) != std::string::npos) continue;
      all = false;
      pollfd p{fds[i], POLLIN, 0};
      if (::poll(&p, 1, 0) <= 0) continue;
      ssize_t n = ::recv(fds[i], buf, sizeof buf, 0);
      if (n > 0) texts[i].append(buf, static_cast<std::size_t>(n));
    }
    if (all) return;
    std::this_thread::sleep_for(5ms);
  }
}

std::size_t threadCount(pid_t pid) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task"))
    ++n;
  return n;
}

TEST(DetachedStreams, MoreOpenTailsThanWorkersLeaveTheServerAnsweringAndEveryTailFed) {
  ServerProcess server(agentsServer(2));
  auto created = http(server.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"fake","environment":{"type":"none"}})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  const std::string id = sessionId(created.body);
  const std::size_t threads_before = threadCount(server.pid());

  constexpr int kTails = 24;  // twelve times the two workers
  std::vector<int> fds;
  std::vector<std::string> texts(kTails);
  for (int i = 0; i < kTails; ++i) {
    fds.push_back(openTail(server.port(), id, texts[static_cast<std::size_t>(i)]));
    ASSERT_GE(fds.back(), 0);
    ASSERT_THAT(texts[static_cast<std::size_t>(i)], HasSubstr("HTTP/1.1 200")) << "tail " << i;
  }
  // Each tail waits on the event loop, not on a worker: a request still runs.
  const auto asked = Clock::now();
  auto health = http(server.port(), "GET", "/health");
  EXPECT_EQ(health.status, 200);
  auto session = http(server.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth);
  EXPECT_EQ(session.status, 200) << session.body;
  EXPECT_LT(Clock::now() - asked, 2s);
  EXPECT_LE(threadCount(server.pid()), threads_before + 2) << "a thread per tail?";

  auto input = http(server.port(), "POST", "/v1/agents/sessions/" + id + "/events",
                    R"({"events":[{"type":"agent.session.input.message","input":"hi"}]})", kAuth);
  ASSERT_EQ(input.status, 202) << input.body;
  readUntil(fds, texts, "event: agent.session.idle", 20s);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_THAT(texts[i], HasSubstr("event: agent.session.turn.completed")) << "tail " << i;
    EXPECT_THAT(texts[i], HasSubstr("event: agent.session.idle")) << "tail " << i;
  }
  for (int fd : fds) ::close(fd);
}

TEST(DetachedStreams, AHungUpTailGivesItsSubscriberPlaceBackWithoutAWrite) {
  ServerProcess server(agentsServer(4));
  auto created = http(server.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"fake","environment":{"type":"none"}})", kAuth);
  const std::string id = sessionId(created.body);
  std::vector<int> fds;
  for (int i = 0; i < 32; ++i) {
    std::string head;
    fds.push_back(openTail(server.port(), id, head));
    ASSERT_THAT(head, HasSubstr("HTTP/1.1 200")) << "tail " << i;
  }
  std::string refused;
  int extra = openTail(server.port(), id, refused);
  EXPECT_THAT(refused, HasSubstr("HTTP/1.1 429"));
  ::close(extra);
  // No event is written to the silent session: only the hang-up can free the place.
  ::close(fds.back());
  fds.pop_back();
  std::string head;
  const auto deadline = Clock::now() + 3s;
  while (Clock::now() < deadline) {
    head.clear();
    int fd = openTail(server.port(), id, head);
    if (head.find("HTTP/1.1 200") != std::string::npos) {
      fds.push_back(fd);
      break;
    }
    ::close(fd);
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_THAT(head, HasSubstr("HTTP/1.1 200"));
  for (int fd : fds) ::close(fd);
}

TEST(DetachedStreams, NonStreamingResponsesWaitForTheirTurnsWithoutWorkers) {
  ServerProcess server(agentsServer(2));
  constexpr int kWaiting = 6;  // three times the two workers
  std::vector<HttpResult> results(kWaiting);
  std::vector<std::thread> callers;
  for (int i = 0; i < kWaiting; ++i)
    callers.emplace_back([&, i] {
      results[static_cast<std::size_t>(i)] =
          http(server.port(), "POST", "/v1/responses",
               R"({"model":"slow","input":"wait )" + std::to_string(i) + R"("})", kAuth);
    });
  std::this_thread::sleep_for(300ms);  // every caller is waiting for its turn now
  const auto asked = Clock::now();
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  auto models = http(server.port(), "GET", "/v1/models", "", kAuth);
  EXPECT_EQ(models.status, 200) << models.body;
  EXPECT_LT(Clock::now() - asked, 2s);
  for (auto& t : callers) t.join();
  for (int i = 0; i < kWaiting; ++i) {
    const auto& r = results[static_cast<std::size_t>(i)];
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_THAT(r.body, HasSubstr(R"("object":"response")"));
    EXPECT_THAT(r.body, HasSubstr(R"("status":"completed")")) << r.body;
    EXPECT_THAT(r.body, HasSubstr("wait " + std::to_string(i)));
  }
}

}  // namespace
}  // namespace abx::testing
