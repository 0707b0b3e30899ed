// Integration: fault injection against the real server with the fake agents.
// An agent CLI that crashes mid-stream, hangs without output, floods, prints
// a 100 MB line, closes stdout but keeps running, or leaves a daemon holding
// stdout; a client that disconnects mid-stream or never reads (a session's
// events, or its own /v1/responses stream). Each turn
// must end, in bounded time, with a clear outcome; no process of the turn
// may be left; the server keeps answering, stays bounded in memory, and the
// session runs its next turn. Figures go to stdout as "[figure]" lines
// (docs/reliability.md quotes them).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <random>
#include <sstream>

#include "agent_faults_support.h"
#include "support/build_kind.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using namespace faults;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr const char* kToken = "faults-token-1234";
const auto kAuth = bearerJson(kToken);

// A fresh marker per server, so a test only sees its own processes.
std::string newMark() {
  static std::mt19937_64 rng(std::random_device{}());
  return "m" + std::to_string(rng());
}

// One agent per fault; the fault happens only on a prompt saying "fault"
// (FAKE_MODE_IF_PROMPT), so the next turn shows the session still works.
std::string faultAgent(const std::string& name, const std::string& format, const std::string& env,
                       const std::string& limits, const std::string& mark) {
  return "  - name: " + name +
         "\n    runtime: command\n    command: {argv: [\"fake-agent\", \"--format\", \"jsonl-" +
         format + "\"], parser: jsonl-" + format + "}\n    env: {FAKE_MODE_IF_PROMPT: fault, " +
         "FAKE_FAULT_MARK: \"" + mark + "\", " + env + "}\n    limits: {" + limits +
         "}\n    workspace: {path: \"{dir}/work\"}\n";
}

ServerOptions faultsServer(const std::string& mark) {
  std::string yaml = "agents:\n";
  yaml += faultAgent("crash", "codex", "FAKE_MODE: crash", "turn_timeout_s: 20", mark);
  yaml += faultAgent("hang", "codex", "FAKE_MODE: hang", "idle_timeout_s: 1", mark);
  yaml += faultAgent("hang_deaf", "codex", "FAKE_MODE: hang, FAKE_IGNORE_SIGINT: \"1\"",
                     "idle_timeout_s: 1", mark);
  // Past the default 8 MiB output cap, so the flood and the 100 MB line
  // reach the server whole.
  yaml += faultAgent("flood", "claude", "FAKE_MODE: flood, FAKE_FLOOD_EVENTS: \"300000\"",
                     "turn_timeout_s: 60, max_output_bytes: 400000000", mark);
  yaml += faultAgent("flood_big", "claude", "FAKE_MODE: flood, FAKE_FLOOD_EVENTS: \"500000\"",
                     "turn_timeout_s: 60, max_output_bytes: 400000000", mark);
  yaml += faultAgent("huge", "codex", "FAKE_MODE: huge_line, FAKE_HUGE_LINE_BYTES: \"104857600\"",
                     "turn_timeout_s: 60, max_output_bytes: 400000000", mark);
  yaml += faultAgent("closed", "codex", "FAKE_MODE: close_stdout", "idle_timeout_s: 1", mark);
  yaml += faultAgent("daemon", "codex", "FAKE_MODE: daemon, FAKE_DAEMON_S: \"60\"",
                     "turn_timeout_s: 20", mark);
  yaml += faultAgent("slow", "codex", "FAKE_MODE: slow, FAKE_DELAY_MS: \"150\"",
                     "turn_timeout_s: 20", mark);
  return fakeAgentsServer(yaml, kToken);
}

std::string createSession(int port, const std::string& agent, const std::string& input) {
  auto r = http(port, "POST", "/v1/agents/sessions",
                R"({"agent_id":")" + agent + R"(","input":")" + input + R"("})", kAuth);
  EXPECT_EQ(r.status, 200) << r.body;
  return r.status == 200 ? parseObject(r.body)->getValue<std::string>("id") : "";
}

void sendInput(int port, const std::string& id, const std::string& text) {
  auto r = http(port, "POST", "/v1/agents/sessions/" + id + "/events",
                R"({"events":[{"type":"agent.session.input.message","input":")" + text + R"("}]})",
                kAuth);
  EXPECT_EQ(r.status, 202) << r.body;
}

struct Expected {
  std::string status;          // completed / failed
  std::string code;            // the error code when failed
  std::string message_part;    // a part of the error message when failed
  std::chrono::seconds bound;  // the turn ends within this
};

// Runs the fault's turn and checks everything each fault must hold; then
// the session's second turn, which must complete.
void expectFaultHandled(const std::string& agent, const Expected& want, double rss_bound_mib = 0) {
  const auto mark = newMark();
  ServerProcess server(faultsServer(mark));
  RssPeak rss(server.pid());
  const auto began = Clock::now();
  const auto session = createSession(server.port(), agent, "fault now");
  ASSERT_FALSE(session.empty());
  auto turn = waitTurnEnd(server.port(), session, kToken, {}, want.bound + 10s);
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  ASSERT_TRUE(turn) << agent << ": the turn did not end";
  const double growth = rss.growthMib();
  std::cout << "[figure] " << agent << ": turn ended " << turn->getValue<std::string>("status")
            << " after " << seconds << " s; server RSS peak growth " << growth << " MiB\n";
  std::ostringstream shown;
  turn->stringify(shown);
  EXPECT_EQ(turn->getValue<std::string>("status"), want.status) << shown.str();
  EXPECT_LT(seconds, static_cast<double>(want.bound.count())) << agent;
  if (want.status == "failed") {
    auto error = turn->getObject("error");
    ASSERT_TRUE(error) << agent;
    EXPECT_EQ(error->getValue<std::string>("code"), want.code) << agent;
    EXPECT_THAT(error->getValue<std::string>("message"), HasSubstr(want.message_part)) << agent;
  }
  if (rss_bound_mib > 0 && abx::testing::kRssIsMeaningful) {
    EXPECT_LT(growth, rss_bound_mib) << agent;
  }
  // The turn's processes are gone once it ended, the daemon's included
  // (a short settle: the kernel tears a killed process down asynchronously).
  EXPECT_THAT(waitNoneLeft(mark, 2s), IsEmpty()) << agent << ": processes of the turn are left";
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  sendInput(server.port(), session, "again");
  auto second =
      waitTurnEnd(server.port(), session, kToken, {turn->getValue<std::string>("id")}, 20s);
  ASSERT_TRUE(second) << agent << ": the second turn did not end";
  std::ostringstream again;
  second->stringify(again);
  EXPECT_EQ(second->getValue<std::string>("status"), "completed") << again.str();
  EXPECT_THAT(waitNoneLeft(mark, 2s), IsEmpty());
}

TEST(AgentFaults, ACliThatCrashesMidStreamFailsTheTurnNamingTheSignal) {
  expectFaultHandled("crash", {"failed", "internal_error", "signal", 10s});
}

TEST(AgentFaults, ACliThatHangsWithoutOutputIsKilledAtTheIdleTimeout) {
  expectFaultHandled("hang", {"failed", "request_timeout", "no output for 1 s", 6s});
}

TEST(AgentFaults, ACliThatIgnoresSigintIsStillKilledByTheLadder) {
  // 1 s idle + the ladder's 5 s SIGINT grace, then SIGTERM.
  expectFaultHandled("hang_deaf", {"failed", "request_timeout", "no output for 1 s", 10s});
}

TEST(AgentFaults, ACliThatFloodsOutputCompletesWithTheServerBounded) {
  expectFaultHandled("flood", {"completed", "", "", 40s}, 200);
}

TEST(AgentFaults, AHundredMegabyteLineIsCutAndTheTurnGoesOn) {
  expectFaultHandled("huge", {"completed", "", "", 40s}, 200);
}

TEST(AgentFaults, ACliThatClosesStdoutButKeepsRunningIsKilledAtTheIdleTimeout) {
  expectFaultHandled("closed", {"failed", "request_timeout", "no output for 1 s", 6s});
}

TEST(AgentFaults, ADaemonHoldingStdoutNeitherStallsTheTurnNorOutlivesIt) {
  expectFaultHandled("daemon", {"completed", "", "", 6s});
}

// The id of the response a stream announced in response.created.
std::string responseIdIn(const std::string& text) {
  const auto at = text.find(R"("id":"resp_)");
  return at == std::string::npos ? "" : text.substr(at + 6, text.find('"', at + 6) - at - 6);
}

int openStream(int port, const std::string& path, const std::string& body, int rcvbuf) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  const std::string method = body.empty() ? "GET " : "POST ";
  const std::string raw =
      method + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + kToken +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  if (::send(fd, raw.data(), raw.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(raw.size()))
    return -1;
  return fd;
}

TEST(ClientFaults, AClientThatDisconnectsMidStreamLeavesTheTurnToComplete) {
  ServerProcess server(faultsServer(newMark()));
  const int fd = openStream(server.port(), "/v1/responses",
                            R"({"model":"slow","input":"hi","stream":true})", 0);
  ASSERT_GE(fd, 0);
  std::string seen;
  char buffer[4096];
  // Reads until the first output item started, then hangs up.
  while (seen.find("response.output_item.added") == std::string::npos) {
    const auto n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  ASSERT_THAT(seen, Not(HasSubstr("response.completed")));
  const auto id = responseIdIn(seen);
  ASSERT_FALSE(id.empty()) << seen;
  const auto began = Clock::now();
  std::string status;
  while (Clock::now() - began < 20s && status != "completed") {
    auto r = http(server.port(), "GET", "/v1/responses/" + id, "", kAuth);
    if (r.status == 200) status = parseObject(r.body)->getValue<std::string>("status");
    std::this_thread::sleep_for(100ms);
  }
  std::cout << "[figure] disconnected client: response completed "
            << std::chrono::duration<double>(Clock::now() - began).count()
            << " s after the hang-up\n";
  EXPECT_EQ(status, "completed");
}

TEST(ClientFaults, AClientThatNeverReadsDelaysNobodyAndCostsBoundedMemory) {
  const auto mark = newMark();
  ServerProcess server(faultsServer(mark));
  auto created =
      http(server.port(), "POST", "/v1/agents/sessions", R"({"agent_id":"flood"})", kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  const auto session = parseObject(created.body)->getValue<std::string>("id");
  RssPeak rss(server.pid());
  // Subscribed to the session's events with a tiny receive buffer, and never read.
  const int fd = openStream(server.port(), "/v1/agents/sessions/" + session + "/events", "", 4096);
  ASSERT_GE(fd, 0);
  std::this_thread::sleep_for(200ms);
  const auto began = Clock::now();
  sendInput(server.port(), session, "fault");
  double slowest_health = 0;
  Poco::JSON::Object::Ptr turn;
  while (Clock::now() - began < 60s) {
    const auto asked = Clock::now();
    EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
    slowest_health =
        std::max(slowest_health, std::chrono::duration<double>(Clock::now() - asked).count());
    turn = waitTurnEnd(server.port(), session, kToken, {}, 200ms);
    if (turn) break;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  const double growth = rss.growthMib();
  ::close(fd);
  ASSERT_TRUE(turn) << "the flood's turn did not end while a subscriber never read";
  std::cout << "[figure] never-reading client: flood turn " << turn->getValue<std::string>("status")
            << " after " << seconds << " s; slowest /health " << slowest_health * 1000
            << " ms; server RSS peak growth " << growth << " MiB\n";
  std::ostringstream shown;
  turn->stringify(shown);
  EXPECT_EQ(turn->getValue<std::string>("status"), "completed") << shown.str();
  EXPECT_LT(slowest_health, 1.0);
  if (abx::testing::kRssIsMeaningful) {
    EXPECT_LT(growth, 200.0);
  }
  EXPECT_THAT(waitNoneLeft(mark, 2s), IsEmpty());
}

// The server's abx_http_streams_open{where="loop"} (-1 when unreadable).
int loopStreamsOpen(int port) {
  auto r = http(port, "GET", "/metrics", "", kAuth);
  const std::string key = "abx_http_streams_open{where=\"loop\"} ";
  const auto at = r.body.find(key);
  return r.status == 200 && at != std::string::npos ? std::stoi(r.body.substr(at + key.size()))
                                                    : -1;
}

// The server's peak RSS growth over the flood_big turn answered to a
// client that reads it: what the turn itself costs, the reference below.
double floodGrowthWithAReader() {
  ServerProcess server(faultsServer(newMark()));
  RssPeak rss(server.pid());
  auto r = http(server.port(), "POST", "/v1/responses",
                R"({"model":"flood_big","input":"fault","store":false})", kAuth);
  EXPECT_EQ(r.status, 200) << r.body.substr(0, 300);
  return rss.growthMib();
}

// Reads @p fd until its end (closing it): the last 4 KiB, and whether it was reset.
std::pair<std::string, bool> readToEnd(int fd) {
  timeval wait{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  std::string tail;
  char buffer[65536];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) {
    tail.append(buffer, static_cast<std::size_t>(n));
    if (tail.size() > 4096) tail.erase(0, tail.size() - 4096);
  }
  const bool reset = n < 0 && errno == ECONNRESET;
  ::close(fd);
  return {tail, reset};
}

TEST(ClientFaults, AClientThatNeverReadsItsResponsesStreamIsCutAndTheResponseStaysWhole) {
  const double reference = floodGrowthWithAReader();
  const auto mark = newMark();
  auto options = faultsServer(mark);
  // The stall limit of a stream, shortened from its 60 s so the test sees it.
  options.env["ABX_SERVER_IO_TIMEOUT_S"] = "3";
  ServerProcess server(options);
  RssPeak rss(server.pid());
  const auto began = Clock::now();
  const int fd = openStream(server.port(), "/v1/responses",
                            R"({"model":"flood_big","input":"fault","stream":true})", 4096);
  ASSERT_GE(fd, 0);
  // Reads response.created for the id, then never again.
  std::string seen;
  char buffer[1024];
  while (responseIdIn(seen).empty() && seen.size() < 16384) {
    const auto n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    seen.append(buffer, static_cast<std::size_t>(n));
  }
  const auto id = responseIdIn(seen);
  ASSERT_FALSE(id.empty()) << seen;
  double slowest_health = 0, second_turn = 0, stream_closed = -1;
  std::string status;
  while (Clock::now() - began < 60s && (status != "completed" || stream_closed < 0)) {
    const auto asked = Clock::now();
    EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
    const auto since = [](Clock::time_point t) {
      return std::chrono::duration<double>(Clock::now() - t).count();
    };
    slowest_health = std::max(slowest_health, since(asked));
    if (second_turn == 0) {
      // Another session's whole turn, answered while the flood runs.
      auto other =
          http(server.port(), "POST", "/v1/responses", R"({"model":"slow","input":"hi"})", kAuth);
      EXPECT_EQ(other.status, 200) << other.body;
      second_turn = since(asked);
    }
    if (stream_closed < 0 && loopStreamsOpen(server.port()) == 0) stream_closed = since(began);
    auto r = http(server.port(), "GET", "/v1/responses/" + id, "", kAuth);
    if (r.status == 200) status = parseObject(r.body)->getValue<std::string>("status");
    std::this_thread::sleep_for(100ms);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - began).count();
  const double growth = rss.growthMib();
  std::cout << "[figure] never-reading /v1/responses client: " << status << " within " << seconds
            << " s; stream closed by the server after " << stream_closed << " s; slowest /health "
            << slowest_health * 1000 << " ms; another session's turn " << second_turn
            << " s; server RSS peak growth " << growth
            << " MiB (the same turn to a client that reads: " << reference << " MiB)\n";
  EXPECT_EQ(status, "completed");
  EXPECT_LT(slowest_health, 1.0);
  EXPECT_LT(second_turn, 10.0);
  // Closed: cut once 8 MiB behind (when its error event and end still fit
  // in the socket's buffers), else reset by the stall limit (3 s without a
  // byte taken, swept every 0.2 s).
  EXPECT_GE(stream_closed, 0) << "the never-reading stream is still open";
  EXPECT_LT(stream_closed, 15.0);
  const auto [tail, reset] = readToEnd(fd);
  const bool cut = tail.find(R"("code":"events_dropped")") != std::string::npos;
  EXPECT_TRUE(cut || reset) << tail;
  std::cout << "[figure] the client, reading at last: "
            << (cut ? "an events_dropped error and the end" : "a reset") << "\n";
  // Beyond what the turn costs anyway: the 8 MiB of history a reader may
  // lag, a 64 KiB chunk, the socket's buffers, and malloc's slack. Without
  // the cut the stream's reader kept every event of the flood (about
  // 95 MiB of SSE text) until its connection closed.
  if (abx::testing::kRssIsMeaningful) {
    EXPECT_LT(growth, reference + 40.0);
  }
  // The response is whole: every delta is in its message.
  auto r = http(server.port(), "GET", "/v1/responses/" + id, "", kAuth);
  ASSERT_EQ(r.status, 200);
  auto output = parseObject(r.body)->getArray("output");
  ASSERT_TRUE(output && output->size() > 0) << r.body.substr(0, 400);
  std::string text;
  for (std::size_t i = 0; i < output->size(); ++i) {
    auto item = output->getObject(static_cast<unsigned>(i));
    if (item->getValue<std::string>("type") != "message") continue;
    auto content = item->getArray("content");
    for (std::size_t j = 0; content && j < content->size(); ++j)
      text += content->getObject(static_cast<unsigned>(j))->getValue<std::string>("text");
  }
  EXPECT_EQ(text.rfind("tok0 tok1 ", 0), 0u) << text.substr(0, 80);
  EXPECT_TRUE(text.ends_with("tok499999 ")) << text.substr(text.size() > 80 ? text.size() - 80 : 0);
  EXPECT_THAT(waitNoneLeft(mark, 2s), IsEmpty());
}

}  // namespace
}  // namespace abx::testing
