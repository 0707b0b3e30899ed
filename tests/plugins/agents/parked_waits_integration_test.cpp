// Integration: Responses requests that wait for a turn park on the event
// loop instead of holding a worker — store: false (JSON and streamed), a
// repeated Idempotency-Key, and a ?stream=true replay of a response whose
// history is gone (a turn of the Agents wire) or was cut (8 MiB). With more
// of each than the server has workers, /health and other routes still
// answer, every waiting request gets its own answer, unstored responses are
// gone afterwards, a client that hangs up leaves its turn running (and an
// unstored one is still forgotten), and a stop does not wait for them.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;

constexpr const char* kToken = "parked-token-2468";
const auto kAuth = bearerJson(kToken);
constexpr int kWorkers = 2;
constexpr int kEach = 3;  // more waits of each kind than workers

// slow: a 4 s turn (8 lines, 500 ms apart). flood: 100 000 deltas (far past
// a response's 8 MiB of history; its final state alone replays in ~16 MiB),
// a marker file, then 5 s more.
ServerOptions parkingServer() {
  auto o = fakeAgentsServer(R"(agents:
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "500"}
    workspace: {path: "{dir}/work"}
  - name: flood
    runtime: command
    command:
      argv: ["sh", "-c", "yes 0123456789abcdef0123456789abcde | head -n 100000; touch {dir}/flooded.$$; sleep 5"]
      parser: text
    workspace: {path: "{dir}/work"}
)",
                            kToken);
  o.env["ABX_AGENTS_MAX_CONCURRENT_TURNS"] = "32";
  o.args = {"--threads", std::to_string(kWorkers)};
  return o;
}

Poco::JSON::Object::Ptr json(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

// The first `"id":"<prefix>…"` in a body (a JSON object or an SSE stream).
std::string firstId(const std::string& body, const std::string& prefix) {
  const auto at = body.find("\"id\":\"" + prefix);
  return at == std::string::npos ? "" : body.substr(at + 6, body.find('"', at + 6) - at - 6);
}

// A request on its own thread; a timeout or reset leaves status 0.
struct Call {
  HttpResult result;
  std::thread thread;
};

void start(Call& call, int port, std::string method, std::string target, std::string body,
           std::vector<std::pair<std::string, std::string>> headers, std::atomic<int>& done) {
  call.thread = std::thread([&call, &done, port, method, target, body, headers] {
    try {
      call.result = http(port, method, target, body, headers);
    } catch (...) {
      call.result.status = 0;
    }
    ++done;
  });
}

int countFiles(const std::string& dir, const std::string& prefix) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().starts_with(prefix)) ++n;
  return n;
}

std::string responseStatus(int port, const std::string& id) {
  auto r = http(port, "GET", "/v1/responses/" + id, "", kAuth);
  return r.status == 200 ? json(r.body)->getValue<std::string>("status") : std::to_string(r.status);
}

// Polls until every response is gone (404) or @p wait passed.
void waitGone(int port, const std::vector<std::string>& ids, std::chrono::seconds wait) {
  for (const auto deadline = Clock::now() + wait; Clock::now() < deadline;) {
    bool all = true;
    for (const auto& id : ids) all = all && responseStatus(port, id) == "404";
    if (all) return;
    std::this_thread::sleep_for(100ms);
  }
  for (const auto& id : ids) EXPECT_EQ(responseStatus(port, id), "404") << id;
}

std::string agentsTurnResponse(int port, const std::string& input) {
  auto created = http(port, "POST", "/v1/agents/sessions",
                      R"({"agent_id":"slow","input":")" + input + R"("})", kAuth);
  EXPECT_EQ(created.status, 200) << created.body;
  const auto session = firstId(created.body, "agsess");
  auto turns = http(port, "GET", "/v1/agents/sessions/" + session + "/turns", "", kAuth);
  const auto turn = firstId(turns.body, "turn_");
  EXPECT_FALSE(turn.empty()) << turns.body;
  return "resp_" + turn.substr(5);
}

TEST(ParkedWaits, MoreWaitingResponsesThanWorkersLeaveTheServerAnsweringAndEachGetsItsAnswer) {
  ServerProcess server(parkingServer());
  const int port = server.port();
  std::vector<std::string> flooded, originals, replayed;
  for (int i = 0; i < kEach; ++i) {
    auto r = http(port, "POST", "/v1/responses",
                  R"({"model":"flood","input":"f","background":true})", kAuth);
    ASSERT_EQ(r.status, 200) << r.body;
    flooded.push_back(json(r.body)->getValue<std::string>("id"));
  }
  // Their histories are cut once the floods are written (and read).
  for (const auto deadline = Clock::now() + 60s;
       countFiles(server.dir(), "flooded.") < kEach && Clock::now() < deadline;)
    std::this_thread::sleep_for(50ms);
  ASSERT_EQ(countFiles(server.dir(), "flooded."), kEach);
  std::this_thread::sleep_for(500ms);
  for (int i = 0; i < kEach; ++i) {
    auto headers = kAuth;
    headers.emplace_back("Idempotency-Key", "key-" + std::to_string(i));
    auto r =
        http(port, "POST", "/v1/responses",
             R"({"model":"slow","input":"again )" + std::to_string(i) + R"(","background":true})",
             headers);
    ASSERT_EQ(r.status, 200) << r.body;
    originals.push_back(json(r.body)->getValue<std::string>("id"));
    replayed.push_back(agentsTurnResponse(port, "tail " + std::to_string(i)));
  }

  std::atomic<int> done{0};
  std::vector<Call> unstored(kEach), streamed(kEach), repeats(kEach), gone(kEach), cut(kEach);
  for (int i = 0; i < kEach; ++i) {
    const auto n = std::to_string(i);
    start(unstored[i], port, "POST", "/v1/responses",
          R"({"model":"slow","input":"unstored )" + n + R"(","store":false})", kAuth, done);
    start(streamed[i], port, "POST", "/v1/responses",
          R"({"model":"slow","input":"streamed )" + n + R"(","store":false,"stream":true})", kAuth,
          done);
    auto headers = kAuth;
    headers.emplace_back("Idempotency-Key", "key-" + n);
    start(repeats[i], port, "POST", "/v1/responses",
          R"({"model":"slow","input":"again )" + n + R"("})", headers, done);
    start(gone[i], port, "GET", "/v1/responses/" + replayed[i] + "?stream=true", "", kAuth, done);
    start(cut[i], port, "GET", "/v1/responses/" + flooded[i] + "?stream=true", "", kAuth, done);
  }
  std::this_thread::sleep_for(700ms);  // every call waits for its turn now

  // Five times the workers are waiting: the server still answers at once.
  const auto asked = Clock::now();
  EXPECT_EQ(http(port, "GET", "/health").status, 200);
  auto models = http(port, "GET", "/v1/models", "", kAuth);
  EXPECT_EQ(models.status, 200) << models.body;
  EXPECT_EQ(responseStatus(port, originals[0]), "in_progress");
  EXPECT_LT(Clock::now() - asked, 2s);
  EXPECT_EQ(done.load(), 0) << "the turns ended before the probe";

  for (auto* calls : {&unstored, &streamed, &repeats, &gone, &cut})
    for (auto& call : *calls) call.thread.join();
  for (int i = 0; i < kEach; ++i) {
    const auto n = std::to_string(i);
    const auto& u = unstored[i].result;
    ASSERT_EQ(u.status, 200) << u.body;
    EXPECT_THAT(u.body, HasSubstr(R"("status":"completed")"));
    EXPECT_THAT(u.body, HasSubstr("unstored " + n));
    EXPECT_EQ(responseStatus(port, firstId(u.body, "resp_")), "404");

    const auto& s = streamed[i].result;
    ASSERT_EQ(s.status, 200) << s.body;
    EXPECT_THAT(s.body, StartsWith("event: response.created\n"));
    EXPECT_THAT(s.body, HasSubstr("event: response.completed\n"));
    EXPECT_THAT(s.body, HasSubstr("streamed " + n));
    EXPECT_EQ(responseStatus(port, firstId(s.body, "resp_")), "404");

    const auto& r = repeats[i].result;
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json(r.body)->getValue<std::string>("id"), originals[i]);
    EXPECT_THAT(r.body, HasSubstr(R"("status":"completed")"));
    EXPECT_THAT(r.body, HasSubstr("again " + n));

    for (const auto* replay : {&gone[i].result, &cut[i].result}) {
      ASSERT_EQ(replay->status, 200) << replay->body.substr(0, 300);
      EXPECT_THAT(replay->body, StartsWith("event: response.created\n"));
      EXPECT_THAT(replay->body, HasSubstr("event: response.output_text.delta\n"));
      EXPECT_THAT(replay->body, HasSubstr("event: response.completed\n"));
    }
    EXPECT_THAT(gone[i].result.body, HasSubstr("tail " + n));
    EXPECT_THAT(cut[i].result.body, HasSubstr(R"("id":")" + flooded[i]));
  }
}

TEST(ParkedWaits, AClientThatHangsUpLeavesItsUnstoredTurnRunningAndItIsStillForgotten) {
  ServerProcess server(parkingServer());
  const int port = server.port();
  const auto began = Clock::now();
  auto raw = [](const std::string& body) {
    return "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
           std::string(kToken) +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
  };
  // A stream names its response in its first event; hang up after it.
  auto partial =
      rawHttp(port, raw(R"({"model":"slow","input":"s","store":false,"stream":true})"), 400ms);
  const auto streamed = firstId(partial, "resp_");
  ASSERT_FALSE(streamed.empty()) << partial;
  // A JSON answer names nothing before its end: find the turn through its session.
  (void)rawHttp(port, raw(R"({"model":"slow","input":"j","store":false})"), 400ms);
  std::string waited;
  auto sessions = json(http(port, "GET", "/v1/agents/sessions", "", kAuth).body);
  auto data = sessions->getArray("data");
  for (std::size_t i = 0; i < data->size(); ++i) {
    auto turns =
        http(port, "GET",
             "/v1/agents/sessions/" +
                 data->getObject(static_cast<unsigned>(i))->getValue<std::string>("id") + "/turns",
             "", kAuth);
    const auto turn = firstId(turns.body, "turn_");
    if (!turn.empty() && "resp_" + turn.substr(5) != streamed) waited = "resp_" + turn.substr(5);
  }
  ASSERT_FALSE(waited.empty());
  // Both clients are gone; both turns go on, and are forgotten when they end.
  EXPECT_EQ(responseStatus(port, streamed), "in_progress");
  EXPECT_EQ(responseStatus(port, waited), "in_progress");
  waitGone(port, {streamed, waited}, 20s);
  EXPECT_GT(Clock::now() - began, 3s) << "the turns were cut short";
}

TEST(ParkedWaits, AStopDoesNotWaitForParkedRequests) {
  ServerProcess server(parkingServer());
  const int port = server.port();
  std::atomic<int> done{0};
  std::vector<Call> calls(kEach);
  for (auto& call : calls)
    start(call, port, "POST", "/v1/responses",
          R"({"model":"slow","input":"x","store":false,"stream":false})", kAuth, done);
  std::this_thread::sleep_for(700ms);
  const auto asked = Clock::now();
  EXPECT_EQ(server.stop(), 0);
  // A request still on a worker would hold the drain for its 10 s.
  EXPECT_LT(Clock::now() - asked, 2500ms);
  for (auto& call : calls) {
    call.thread.join();
    EXPECT_NE(call.result.status, 200) << "answered after the stop?";
  }
}

}  // namespace
}  // namespace abx::testing
