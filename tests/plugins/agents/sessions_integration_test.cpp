// Integration: the Agents wire's event tail on the real server — `id:`
// lines and Last-Event-ID replay without duplicates or gaps, a client that
// disconnects mid-turn does not stop the turn, 32 subscribers each get every
// event of a flood in order and the 33rd is refused, and a deleted session
// ends its tails with agent.session.failed.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "support/agents_server.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "sessions-token-1234";

ServerOptions sessionsServer() {
  return fakeAgentsServer(R"(agents:
  - name: fake
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    workspace: {path: "{dir}/work"}
  - name: slow
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-codex"], parser: jsonl-codex}
    env: {FAKE_MODE: slow, FAKE_DELAY_MS: "100"}
    workspace: {path: "{dir}/work"}
  - name: flood
    runtime: command
    command: {argv: ["fake-agent", "--format", "jsonl-claude"], parser: jsonl-claude}
    env: {FAKE_MODE: flood, FAKE_FLOOD_EVENTS: "3000"}
    workspace: {path: "{dir}/work"}
  - name: env-printer
    runtime: command
    command: {argv: ["sh", "-c", "printf 'VAULT=%s\\n' \"$VAULT_TOKEN\""], parser: text}
    workspace: {path: "{dir}/work"}
)",
                          kToken);
}

const auto kAuth = bearerJson(kToken);

std::string createSession(const ServerProcess& s, const std::string& agent) {
  auto r = http(s.port(), "POST", "/v1/agents/sessions",
                R"({"agent_id":")" + agent + R"(","environment":{"type":"none"}})", kAuth);
  EXPECT_EQ(r.status, 200) << r.body;
  Poco::JSON::Parser parser;
  return parser.parse(r.body).extract<Poco::JSON::Object::Ptr>()->getValue<std::string>("id");
}

void sendInput(const ServerProcess& s, const std::string& id, const std::string& text) {
  auto r = http(s.port(), "POST", "/v1/agents/sessions/" + id + "/events",
                R"({"events":[{"type":"agent.session.input.message","input":")" + text + R"("}]})",
                kAuth);
  EXPECT_EQ(r.status, 202) << r.body;
}

// Everything a GET …/events tail receives until the server closes or it is
// quiet for @p quiet.
std::string tail(const ServerProcess& s, const std::string& id, const std::string& extra,
                 std::chrono::milliseconds quiet) {
  return dechunked(rawHttp(s.port(),
                           "GET /v1/agents/sessions/" + id +
                               "/events HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                               "Authorization: Bearer " + kToken + "\r\n" + extra + "\r\n",
                           quiet));
}

// The `id:` values of an SSE text, in order.
std::vector<std::string> idsOf(const std::string& text) {
  std::vector<std::string> ids;
  for (std::size_t at = text.find("\nid: "); at != std::string::npos;
       at = text.find("\nid: ", at + 1))
    ids.push_back(text.substr(at + 5, text.find('\n', at + 5) - at - 5));
  return ids;
}

void waitIdle(const ServerProcess& s, const std::string& id) {
  for (int i = 0; i < 300; ++i) {
    auto r = http(s.port(), "GET", "/v1/agents/sessions/" + id, "", kAuth);
    auto turns = http(s.port(), "GET", "/v1/agents/sessions/" + id + "/turns", "", kAuth);
    if (r.body.find(R"("status":"idle")") != std::string::npos &&
        turns.body.find(R"("status":"completed")") != std::string::npos)
      return;
    std::this_thread::sleep_for(50ms);
  }
  FAIL() << "session never became idle";
}

TEST(SessionsWire, LastEventIdReplaysExactlyTheMissedEvents) {
  ServerProcess server(sessionsServer());
  const auto id = createSession(server, "fake");
  sendInput(server, id, "hello");
  waitIdle(server, id);
  auto all = tail(server, id, "Last-Event-ID: 0\r\n", 800ms);
  auto ids = idsOf(all);
  ASSERT_GE(ids.size(), 8u) << all;
  for (std::size_t i = 1; i < ids.size(); ++i)
    EXPECT_EQ(std::stoull(ids[i]), std::stoull(ids[i - 1]) + 1);  // no gaps
  EXPECT_THAT(all, HasSubstr("event: agent.session.turn.completed"));
  const std::size_t cut = ids.size() / 2;
  auto rest = tail(server, id, "Last-Event-ID: " + ids[cut - 1] + "\r\n", 800ms);
  EXPECT_EQ(idsOf(rest), std::vector<std::string>(ids.begin() + cut, ids.end()));
}

// A tail that reads until @p until has arrived, then hangs up: the part of
// what it got that ends with a whole event.
std::string tailUntil(const ServerProcess& s, const std::string& id, const std::string& until) {
  int fd = connectLoopback(s.port());
  const std::string request = "GET /v1/agents/sessions/" + id +
                              "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                              kToken + "\r\n\r\n";
  std::string raw;
  if (fd >= 0 && ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) > 0)
    receiveUntil(fd, raw, 10s,
                 [&](const std::string& r) { return dechunked(r).find(until) != r.npos; });
  if (fd >= 0) ::close(fd);
  std::string text = dechunked(raw);
  return text.substr(0, text.rfind("\n\n") + 2);
}

TEST(SessionsWire, DisconnectDoesNotStopTheTurnAndALaterClientSeesTheRest) {
  ServerProcess server(sessionsServer());
  const auto id = createSession(server, "slow");
  std::string seen;
  // Goes away as soon as the turn has started (the slow agent then still
  // has lines to write, 100 ms apart).
  std::thread first([&] { seen = tailUntil(server, id, "event: agent.session.turn.in_progress"); });
  std::this_thread::sleep_for(100ms);
  sendInput(server, id, "keep going");
  first.join();
  ASSERT_THAT(seen, HasSubstr("event: agent.session.turn.in_progress"));
  ASSERT_THAT(seen, Not(HasSubstr("event: agent.session.turn.completed")));
  // The later client resumes where the first one left: it gets the rest of
  // the turn, which went on without a client, and nothing twice.
  const auto first_ids = idsOf(seen);
  ASSERT_FALSE(first_ids.empty()) << seen;
  auto later = tail(server, id, "Last-Event-ID: " + first_ids.back() + "\r\n", 3s);
  EXPECT_THAT(later, HasSubstr("event: agent.session.turn.completed"));
  EXPECT_THAT(later, HasSubstr("turn 1: keep going"));
  const auto later_ids = idsOf(later);
  ASSERT_FALSE(later_ids.empty()) << later;
  EXPECT_EQ(std::stoull(later_ids.front()), std::stoull(first_ids.back()) + 1);
}

TEST(SessionsWire, TheThirtyThirdSubscriberIsRefused) {
  ServerProcess server(sessionsServer());
  const auto id = createSession(server, "fake");
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> open;
  auto subscribe = [&](int& status) {
    auto session = std::make_unique<Poco::Net::HTTPClientSession>(
        "127.0.0.1", static_cast<Poco::UInt16>(server.port()));
    Poco::Net::HTTPRequest request("GET", "/v1/agents/sessions/" + id + "/events", "HTTP/1.1");
    request.set("Authorization", std::string("Bearer ") + kToken);
    session->sendRequest(request);
    Poco::Net::HTTPResponse response;
    session->receiveResponse(response);
    status = response.getStatus();
    open.push_back(std::move(session));
  };
  for (int i = 0; i < 32; ++i) {
    int status = 0;
    subscribe(status);
    ASSERT_EQ(status, 200) << "subscriber " << i;
  }
  int status = 0;
  subscribe(status);
  EXPECT_EQ(status, 429);
}

TEST(SessionsWire, ThirtyTwoSubscribersEachReceiveEveryEventOfAFloodInOrder) {
  ServerProcess server(sessionsServer());
  const auto id = createSession(server, "flood");
  constexpr int kSubscribers = 32;
  constexpr int kDeltas = 3000;
  std::vector<std::string> seen(kSubscribers);
  std::vector<std::thread> readers;
  // Last-Event-ID: 0 makes a reader that attaches after the first events
  // still start at the beginning; each returns 2 s after the last event.
  for (int i = 0; i < kSubscribers; ++i)
    readers.emplace_back([&, i] { seen[i] = tail(server, id, "Last-Event-ID: 0\r\n", 2s); });
  std::this_thread::sleep_for(300ms);
  sendInput(server, id, "flood");
  for (auto& t : readers) t.join();
  std::vector<std::string> first_ids;
  for (int i = 0; i < kSubscribers; ++i) {
    const auto& text = seen[i];
    ASSERT_THAT(text, HasSubstr("event: agent.session.idle")) << "subscriber " << i;
    auto ids = idsOf(text);
    for (std::size_t k = 0; k < ids.size(); ++k)
      ASSERT_EQ(std::stoull(ids[k]), k + 1) << "subscriber " << i << " event " << k;
    if (i == 0) first_ids = ids;
    EXPECT_EQ(ids, first_ids) << "subscriber " << i;
    int next = 0;
    for (std::size_t at = text.find(R"("delta":"tok)"); at != std::string::npos;
         at = text.find(R"("delta":"tok)", at + 1)) {
      ASSERT_EQ(std::stoi(text.substr(at + 12)), next)
          << "subscriber " << i << ": " << text.substr(at > 300 ? at - 300 : 0, 600);
      ++next;
    }
    EXPECT_EQ(next, kDeltas) << "subscriber " << i;
  }
}

TEST(SessionsWire, DeletingASessionEndsItsTailWithSessionFailed) {
  ServerProcess server(sessionsServer());
  const auto id = createSession(server, "fake");
  std::string text;
  const auto start = std::chrono::steady_clock::now();
  std::thread reader([&] { text = tail(server, id, "Connection: close\r\n", 10s); });
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(http(server.port(), "DELETE", "/v1/agents/sessions/" + id, "", kAuth).status, 200);
  reader.join();
  // The server ended the response (and closed): the reader did not wait 10 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_THAT(text, HasSubstr("event: agent.session.failed"));
  EXPECT_THAT(text, HasSubstr(R"("status":"failed","error":"The session was deleted.")"));
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

TEST(AgentsRuntimes, ListsTheRegisteredAdapters) {
  ServerProcess server(sessionsServer());
  auto r = http(server.port(), "GET", "/v1/agents/runtimes", "", kAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr(R"("name":"command")"));
  EXPECT_THAT(r.body, HasSubstr(R"("implemented":true,"installed":true)"));
  EXPECT_THAT(r.body, HasSubstr(R"("capabilities":{"resume":true)"));
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

constexpr const char* kDefinition = R"({"name":"made-by-http","runtime":"command",
  "command":{"argv":["fake-agent","--format","jsonl-codex"],"parser":"jsonl-codex"},
  "workspace":{"path":"/tmp/abx-http-agent-work"},
  "secrets":{"HTTP_AGENT_SECRET":"write-only-value-98765"}})";

TEST(AgentsDefinitions, CreateReadRunUpdateDeleteWithWriteOnlySecrets) {
  ServerProcess server(sessionsServer());
  auto created = http(server.port(), "POST", "/v1/agents", kDefinition, kAuth);
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_THAT(created.body, HasSubstr(R"("object":"agent")"));
  EXPECT_THAT(created.body, Not(HasSubstr("write-only-value")));
  EXPECT_THAT(created.body, HasSubstr("***"));
  auto again = http(server.port(), "POST", "/v1/agents", kDefinition, kAuth);
  EXPECT_EQ(again.status, 409);
  auto got = http(server.port(), "GET", "/v1/agents/made-by-http", "", kAuth);
  EXPECT_EQ(got.status, 200);
  EXPECT_THAT(got.body, Not(HasSubstr("write-only-value")));
  auto list = http(server.port(), "GET", "/v1/agents", "", kAuth);
  EXPECT_THAT(list.body, HasSubstr(R"("id":"made-by-http")"));
  auto run = http(server.port(), "POST", "/v1/responses",
                  R"({"model":"made-by-http","input":"from http"})", kAuth);
  EXPECT_EQ(run.status, 200) << run.body;
  EXPECT_THAT(run.body, HasSubstr("turn 1: from http"));
  // An update merges: the command block and the secret stay (still write-only).
  auto merged = http(server.port(), "POST", "/v1/agents/made-by-http",
                     R"({"instructions":"Be brief.","metadata":{"team":"a"}})", kAuth);
  EXPECT_EQ(merged.status, 200) << merged.body;
  EXPECT_THAT(merged.body, HasSubstr(R"("instructions":"Be brief.")"));
  EXPECT_THAT(merged.body, HasSubstr(R"("HTTP_AGENT_SECRET":"***")"));
  EXPECT_THAT(merged.body, HasSubstr(R"("metadata":{"team":"a"})"));
  EXPECT_THAT(merged.body, HasSubstr(R"("argv":["fake-agent")"));
  auto filtered = http(server.port(), "GET", "/v1/agents?metadata%5Bteam%5D=a", "", kAuth);
  EXPECT_THAT(filtered.body, HasSubstr(R"("id":"made-by-http")"));
  filtered = http(server.port(), "GET", "/v1/agents?metadata%5Bteam%5D=b", "", kAuth);
  EXPECT_THAT(filtered.body, HasSubstr(R"("data":[])"));
  auto rerun = http(server.port(), "POST", "/v1/responses",
                    R"({"model":"made-by-http","input":"after the merge"})", kAuth);
  EXPECT_THAT(rerun.body, HasSubstr("turn 1: after the merge"));
  // null clears: runtime command without its command block is refused, naming it.
  auto bad = http(server.port(), "POST", "/v1/agents/made-by-http", R"({"command":null})", kAuth);
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr(R"("param":"command")"));
  auto removed = http(server.port(), "DELETE", "/v1/agents/made-by-http", "", kAuth);
  EXPECT_EQ(removed.status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/v1/agents/made-by-http", "", kAuth).status, 404);
  EXPECT_THAT(server.stderrText(), Not(HasSubstr("write-only-value")));
}

std::string paramIs(const std::string& param) { return R"("param":")" + param + R"(")"; }

// What an agent or a session cannot honour is a 400 whose param names the field.
TEST(AgentsDefinitions, UnhonouredFieldsAre400sNamingTheField) {
  ServerProcess server(sessionsServer());
  const std::pair<const char*, const char*> agents[] = {
      {R"({"model":"codex","tools":[{"type":"web_search"}]})", "tools[0].type"},
      {R"({"model":"codex","text":{"format":{"type":"json_object"}}})", "text.format"},
      {R"({"model":"codex","service_tier":"priority"})", "service_tier"},
      {R"({"model":"codex","reasoning":{"effort":"high"}})", "reasoning.effort"},
      {R"({"model":"codex","unheard_of":1})", "unheard_of"},
      {R"({"name":"x"})", "model"}};
  for (const auto& [body, param] : agents) {
    auto r = http(server.port(), "POST", "/v1/agents", body, kAuth);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_THAT(r.body, HasSubstr(paramIs(param))) << r.body;
  }
  const std::pair<const char*, const char*> sessions[] = {
      {R"({"agent_id":"fake","agent":{"multi_agent":{"enabled":true}}})",
       "agent.multi_agent.enabled"},
      {R"({"agent_id":"fake","environment":{"type":"self_hosted","workspace_directory":"/"}})",
       "environment.workspace_directory"},
      {R"({"agent_id":"fake","review":"auto_review"})", "review"},
      {R"({"agent_id":"fake","metadata":{"k":5}})", "metadata.k"}};
  for (const auto& [body, param] : sessions) {
    auto r = http(server.port(), "POST", "/v1/agents/sessions", body, kAuth);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_THAT(r.body, HasSubstr(paramIs(param))) << r.body;
  }
  const auto id = createSession(server, "fake");
  auto r = http(server.port(), "POST", "/v1/agents/sessions/" + id,
                R"({"agent":{"tools":[{"type":"function"}]}})", kAuth);
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr(R"("param":"agent.tools[0].type")"));
}

TEST(AgentsDefinitions, LockedDefinitionsRefuseWrites) {
  auto options = sessionsServer();
  options.env["ABX_AGENTS_LOCK_DEFINITIONS"] = "1";
  ServerProcess server(options);
  EXPECT_EQ(http(server.port(), "POST", "/v1/agents", kDefinition, kAuth).status, 403);
  EXPECT_EQ(http(server.port(), "DELETE", "/v1/agents/fake", "", kAuth).status, 403);
  EXPECT_EQ(http(server.port(), "GET", "/v1/agents/fake", "", kAuth).status, 200);
  // A session may not add MCP servers to a locked definition, at create or update.
  const std::string tools = R"({"tools":[{"type":"mcp","server_label":"x",
    "transport":{"type":"http","server_url":"http://127.0.0.1:9/mcp"}}]})";
  auto created = http(server.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"fake","agent":)" + tools + "}", kAuth);
  EXPECT_EQ(created.status, 403) << created.body;
  const auto id = createSession(server, "fake");
  auto updated =
      http(server.port(), "POST", "/v1/agents/sessions/" + id, R"({"agent":)" + tools + "}", kAuth);
  EXPECT_EQ(updated.status, 403) << updated.body;
  EXPECT_THAT(updated.body, HasSubstr("definitions_locked"));
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

TEST(AgentsApi, PartsThisServerDoesNotOfferAnswerAClearEnvelopeError) {
  ServerProcess server(sessionsServer());
  for (const std::string path :
       {"/v1/agents/environments", "/v1/agents/automations/a1", "/v1/agents/sessions/s1/traces"}) {
    auto r = http(server.port(), "GET", path, "", kAuth);
    EXPECT_EQ(r.status, 400) << path;
    EXPECT_THAT(r.body, HasSubstr(R"("code":"unsupported_endpoint")")) << path;
  }
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

TEST(Vaults, CredentialsAreWriteOnlyAndReachTheSessionsCliRedacted) {
  ServerProcess server(sessionsServer());
  auto vault = http(server.port(), "POST", "/v1/vaults", R"({"name":"team"})", kAuth);
  ASSERT_EQ(vault.status, 200) << vault.body;
  Poco::JSON::Parser parser;
  const auto vault_id =
      parser.parse(vault.body).extract<Poco::JSON::Object::Ptr>()->getValue<std::string>("id");
  auto cred = http(server.port(), "POST", "/v1/vaults/" + vault_id + "/credentials",
                   R"({"name":"tok","auth":{"type":"environment_variable",
                       "secret_name":"VAULT_TOKEN","secret_value":"vault-secret-value-4242"}})",
                   kAuth);
  ASSERT_EQ(cred.status, 200) << cred.body;
  EXPECT_THAT(cred.body, Not(HasSubstr("vault-secret-value")));
  EXPECT_THAT(cred.body, HasSubstr(R"("secret_name":"VAULT_TOKEN")"));
  auto list = http(server.port(), "GET", "/v1/vaults/" + vault_id + "/credentials", "", kAuth);
  EXPECT_THAT(list.body, Not(HasSubstr("vault-secret-value")));
  EXPECT_EQ(http(server.port(), "POST", "/v1/agents/sessions",
                 R"({"agent_id":"env-printer","vault_ids":["vlt_nope"]})", kAuth)
                .status,
            404);
  auto session = http(server.port(), "POST", "/v1/agents/sessions",
                      R"({"agent_id":"env-printer","environment":{"type":"none"},"vault_ids":[")" +
                          vault_id + R"("]})",
                      kAuth);
  ASSERT_EQ(session.status, 200) << session.body;
  EXPECT_THAT(session.body, HasSubstr(vault_id));
  const auto id =
      parser.parse(session.body).extract<Poco::JSON::Object::Ptr>()->getValue<std::string>("id");
  sendInput(server, id, "print it");
  waitIdle(server, id);
  auto items = http(server.port(), "GET", "/v1/agents/sessions/" + id + "/items", "", kAuth);
  EXPECT_THAT(items.body, HasSubstr("VAULT=[REDACTED]"));  // it reached the CLI
  EXPECT_THAT(items.body, Not(HasSubstr("vault-secret-value")));
  auto events = tail(server, id, "Last-Event-ID: 0\r\n", 500ms);
  EXPECT_THAT(events, Not(HasSubstr("vault-secret-value")));
  EXPECT_EQ(http(server.port(), "DELETE", "/v1/vaults/" + vault_id, "", kAuth).status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/v1/vaults/" + vault_id, "", kAuth).status, 404);
  EXPECT_THAT(server.stderrText(), Not(HasSubstr("vault-secret-value")));
}

}  // namespace
}  // namespace abx::testing
