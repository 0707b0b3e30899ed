// Integration: the terminal plugin in the real server — every REST route
// and error over HTTP, and the PTY WebSocket with POCO's client: 1008
// closes, 401 before the upgrade, tickets (once, not twice), token headers,
// a real bash (echo $((6*7)) -> 42, resize -> stty size, SIGINT, exit),
// the session cap, the idle timeout, and the service following pty_connect
// through the policy and SIGHUP reloads.
#include <Poco/Net/WebSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <tuple>

#include "plugins/terminal/terminal_test_client.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using namespace pty_support;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

// ---------------------------------------------------------------- REST

TEST(TerminalRest, CreateReturnsIdUrlWithTicketAndPid) {
  ServerProcess server(options());
  auto c = create(server);
  EXPECT_THAT(c.id, MatchesRegex("[0-9a-f]{12}"));
  EXPECT_GT(c.pid, 0);
  EXPECT_THAT(c.url, MatchesRegex("ws://127\\.0\\.0\\.1:[0-9]+/pty\\?session_id=[0-9a-f]{12}"
                                  "&ticket=[0-9a-f]{32}"));
  EXPECT_GT(c.port, 0);
  EXPECT_NE(c.port, server.port());
  EXPECT_TRUE(listening(c.port));
  EXPECT_EQ(::kill(c.pid, 0), 0);
  // The token never appears in the URL.
  EXPECT_THAT(c.url, Not(HasSubstr(kToken)));
}

TEST(TerminalRest, BadBodiesAre400) {
  ServerProcess server(options());
  // An integer beyond 64 bits once answered 500 ("std::get: wrong index").
  for (const char* body : {R"({"cols":"80"})", R"({"rows":24.5})", R"({"cols":0})",
                           R"({"cols":99999999999999999999999})", R"({"env":"X=1"})",
                           R"({"env":{"X":1}})", R"({"shell":7})"}) {
    auto r = http(server.port(), "POST", "/pty/sessions", body, kAuth);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_THAT(r.body, HasSubstr(R"("type":"ValueError")")) << body;
  }
  auto missing =
      http(server.port(), "POST", "/pty/sessions", R"({"shell":"/no/such/shell"})", kAuth);
  EXPECT_EQ(missing.status, 400);
  auto outside = http(server.port(), "POST", "/pty/sessions", R"({"cwd":"/etc"})", kAuth);
  EXPECT_EQ(outside.status, 403);
  EXPECT_THAT(outside.body, HasSubstr(R"("code":"path_not_allowed")"));
  EXPECT_EQ(http(server.port(), "POST", "/pty/sessions", "{}").status, 401);
}

TEST(TerminalRest, ListGetResizeDelete) {
  ServerProcess server(options());
  auto a = create(server, R"({"cols":100,"rows":30,"shell":"/bin/sh"})");
  auto b = create(server, R"({"shell":"/bin/sh"})");

  auto list = http(server.port(), "GET", "/pty/sessions", "", kAuth);
  ASSERT_EQ(list.status, 200);
  auto sessions = object(list.body)->getArray("sessions");
  ASSERT_EQ(sessions->size(), 2u);
  auto first = sessions->getObject(0);
  EXPECT_EQ(first->getValue<std::string>("id"), a.id);
  EXPECT_EQ(first->getValue<int>("pid"), a.pid);
  EXPECT_EQ(first->getValue<int>("cols"), 100);
  EXPECT_EQ(first->getValue<int>("rows"), 30);
  EXPECT_TRUE(first->getValue<bool>("alive"));
  EXPECT_GT(first->getValue<double>("created_at"), 1.6e9);
  EXPECT_EQ(sessions->getObject(1)->getValue<std::string>("id"), b.id);

  auto one = http(server.port(), "GET", "/pty/sessions/" + b.id, "", kAuth);
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(object(one.body)->getValue<int>("cols"), 80);
  EXPECT_EQ(object(one.body)->getValue<int>("rows"), 24);

  auto resized = http(server.port(), "POST", "/pty/sessions/" + b.id + "/resize",
                      R"({"cols":132,"rows":43})", kAuth);
  ASSERT_EQ(resized.status, 200) << resized.body;
  EXPECT_EQ(resized.body,
            R"({"status":"resized","session_id":")" + b.id + R"(","cols":132,"rows":43})");
  one = http(server.port(), "GET", "/pty/sessions/" + b.id, "", kAuth);
  EXPECT_EQ(object(one.body)->getValue<int>("cols"), 132);
  EXPECT_EQ(
      http(server.port(), "POST", "/pty/sessions/" + b.id + "/resize", R"({"cols":132})", kAuth)
          .status,
      400);
  EXPECT_EQ(http(server.port(), "POST", "/pty/sessions/" + b.id + "/resize",
                 R"({"cols":"a","rows":2})", kAuth)
                .status,
            400);

  auto gone = http(server.port(), "DELETE", "/pty/sessions/" + a.id, "", kAuth);
  ASSERT_EQ(gone.status, 200);
  EXPECT_EQ(gone.body, R"({"status":"closed","session_id":")" + a.id + "\"}");
  EXPECT_TRUE(eventually([&] { return ::kill(a.pid, 0) != 0; }));  // ended and reaped

  for (const auto& [method, target, body] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"DELETE", "/pty/sessions/" + a.id, ""},
           {"GET", "/pty/sessions/" + a.id, ""},
           {"POST", "/pty/sessions/" + a.id + "/resize", R"({"cols":80,"rows":24})"},
           {"GET", "/pty/sessions/ffffffffffff", ""}}) {
    auto r = http(server.port(), method, target, body, kAuth);
    EXPECT_EQ(r.status, 404) << method << " " << target;
    EXPECT_THAT(r.body, HasSubstr("PTY session not found")) << r.body;
  }
  list = http(server.port(), "GET", "/pty/sessions", "", kAuth);
  EXPECT_EQ(object(list.body)->getArray("sessions")->size(), 1u);
  // GET /metrics counts what is open now (docs/metrics.md).
  EXPECT_THAT(http(server.port(), "GET", "/metrics", "", kAuth).body,
              HasSubstr("\nabx_terminal_sessions_open 1\n"));
}

TEST(TerminalRest, DeadSessionsAreReaped) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/true"})");
  EXPECT_TRUE(eventually([&] {
    return http(server.port(), "GET", "/pty/sessions", "", kAuth).body == R"({"sessions":[]})";
  }));
  EXPECT_EQ(http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status, 404);
}

TEST(TerminalRest, GetPtyOnTheHttpPortNamesTheWebSocket) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto r = http(server.port(), "GET", "/pty", "", kAuth);
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("connect with a WebSocket to ws://127.0.0.1:" +
                                std::to_string(c.port) + "/pty?session_id="));
  EXPECT_THAT(r.body, HasSubstr(R"("type":"ValueError")"));
}

TEST(TerminalRest, TenSessionsAtMost) {
  ServerProcess server(options());
  std::vector<Created> made;
  for (int i = 0; i < 10; ++i) made.push_back(create(server, R"({"shell":"/bin/sh"})"));
  auto refused = http(server.port(), "POST", "/pty/sessions", R"({"shell":"/bin/sh"})", kAuth);
  EXPECT_EQ(refused.status, 429);
  EXPECT_THAT(refused.body, HasSubstr(R"("type":"RuntimeError")"));
  EXPECT_THAT(refused.body, HasSubstr("Maximum PTY sessions (10) reached"));
  ASSERT_EQ(http(server.port(), "DELETE", "/pty/sessions/" + made[3].id, "", kAuth).status, 200);
  EXPECT_EQ(http(server.port(), "POST", "/pty/sessions", R"({"shell":"/bin/sh"})", kAuth).status,
            200);
}

TEST(TerminalRest, IdleSessionsAreClosed) {
  Config s;
  s.settings = "      idle_timeout_seconds: 1\n";
  ServerProcess server(options(s));
  auto c = create(server, R"({"shell":"/bin/sh"})");
  EXPECT_TRUE(eventually([&] {
    return http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status == 404;
  }));
  EXPECT_TRUE(eventually([&] { return ::kill(c.pid, 0) != 0; }));
}

// ----------------------------------------------------------- WebSocket

TEST(TerminalWebSocket, MissingOrUnknownSessionClosesWith1008) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  int status = 0;
  auto missing = WsClient::connect(c.port, "/pty", kAuth, &status);
  ASSERT_TRUE(missing) << status;
  EXPECT_EQ(status, 101);
  EXPECT_FALSE(missing->next());
  EXPECT_EQ(missing->close_code, 1008);
  EXPECT_EQ(missing->close_reason, "Missing session_id parameter");

  auto unknown = WsClient::connect(c.port, "/pty?session_id=nope", kAuth, &status);
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->next());
  EXPECT_EQ(unknown->close_code, 1008);
  EXPECT_EQ(unknown->close_reason, "Unknown session: nope");
}

TEST(TerminalWebSocket, WithoutCredentialsTheUpgradeIsRefusedWith401) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  int status = 0;
  EXPECT_FALSE(WsClient::connect(c.port, "/pty?session_id=" + c.id, {}, &status));
  EXPECT_EQ(status, 401);
  EXPECT_FALSE(
      WsClient::connect(c.port, "/pty?session_id=" + c.id, {{"X-Access-Token", "wrong"}}, &status));
  EXPECT_EQ(status, 401);
  EXPECT_FALSE(WsClient::connect(
      c.port, "/pty?session_id=" + c.id + "&ticket=00000000000000000000000000000000", {}, &status));
  EXPECT_EQ(status, 401);
  // Before the upgrade, as a plain JSON answer; unknown sessions are not revealed.
  auto r = http(c.port, "GET", "/pty?session_id=nope", "", upgrade());
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(r.body, R"({"error":"unauthorized","type":"AuthError"})");
  EXPECT_EQ(http(c.port, "GET", "/pty", "", upgrade()).status, 401);
}

TEST(TerminalWebSocket, TicketWorksOnceNotTwice) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  ASSERT_FALSE(c.ticket.empty());
  int status = 0;
  auto ws = WsClient::connect(c.port, c.target, {}, &status);
  ASSERT_TRUE(ws) << status;
  auto started = ws->next();
  ASSERT_TRUE(started);
  EXPECT_EQ(started->getValue<std::string>("event"), "started");
  EXPECT_EQ(started->getValue<std::string>("session_id"), c.id);
  EXPECT_EQ(started->getValue<int>("pid"), c.pid);
  ws.reset();
  EXPECT_FALSE(WsClient::connect(c.port, c.target, {}, &status));
  EXPECT_EQ(status, 401);
  // A ticket is bound to its session.
  auto other = create(server, R"({"shell":"/bin/sh"})");
  EXPECT_FALSE(WsClient::connect(c.port, "/pty?session_id=" + c.id + "&ticket=" + other.ticket, {},
                                 &status));
  EXPECT_EQ(status, 401);
}

TEST(TerminalWebSocket, TokenHeadersWork) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto by_token = attach(c, kAuth);
  by_token.reset();
  auto by_bearer = attach(c, {{"Authorization", "Bearer " + kToken}});
  EXPECT_TRUE(by_bearer);
}

TEST(TerminalWebSocket, OpenServerNeedsNoCredential) {
  Config s;
  s.token = false;
  ServerProcess server(options(s));
  auto c = create(server, R"({"shell":"/bin/sh"})", {});
  auto ws = attach(c, {});
  ws->input("echo open-$((2+3))\n");
  EXPECT_TRUE(ws->waitOutput("open-5"));
}

TEST(TerminalWebSocket, BashOverTheWebSocket) {
  if (::access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no bash";
  ServerProcess server(options());
  auto c = create(server, bashBody(server));
  auto ws = attach(c);
  ws->input("echo $((6*7))\n");
  EXPECT_TRUE(ws->waitOutput("42\r\n")) << ws->output;

  ws->send(R"({"type":"resize","cols":120,"rows":40})");
  ws->input("stty size\n");
  EXPECT_TRUE(ws->waitOutput("40 120\r\n")) << ws->output;
  auto info = object(http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).body);
  EXPECT_EQ(info->getValue<int>("cols"), 120);
  EXPECT_TRUE(info->getValue<bool>("connected"));

  // A REST resize reaches the attached shell too.
  ASSERT_EQ(http(server.port(), "POST", "/pty/sessions/" + c.id + "/resize",
                 R"({"cols":100,"rows":30})", kAuth)
                .status,
            200);
  ws->input("stty size\n");
  EXPECT_TRUE(ws->waitOutput("30 100\r\n")) << ws->output;

  // Invalid frames are ignored; the connection lives on.
  ws->send("not json");
  ws->send(R"({"type":"bogus"})");
  ws->send(R"({"type":"signal","signal":"SIGUSR1"})");
  ws->send(R"({"type":"resize","cols":"wide","rows":40})");
  ws->input("echo still-$((1+1))\n");
  EXPECT_TRUE(ws->waitOutput("still-2\r\n")) << ws->output;

  // SIGINT reaches the foreground job: sleep 30 ends at once.
  ws->input("sleep 30\n");
  // Like a person at a terminal, press Ctrl-C once sleep runs.
  ASSERT_TRUE(eventually([&] { return hasChildNamed(c.pid, "sleep"); }));
  const auto before = std::chrono::steady_clock::now();
  ws->send(R"({"type":"signal","signal":"SIGINT"})");
  ws->input("echo after-$((40+2))\n");
  EXPECT_TRUE(ws->waitOutput("after-42\r\n", std::chrono::seconds(8))) << ws->output;
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(8));

  ws->input("exit\n");
  auto exited = ws->nextEvent();
  ASSERT_TRUE(exited) << ws->output;
  EXPECT_EQ(exited->getValue<std::string>("event"), "exited");
  EXPECT_EQ(exited->getValue<std::string>("session_id"), c.id);
  EXPECT_EQ(ws->waitClose(), 1000);
  EXPECT_TRUE(eventually([&] {
    return http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status == 404;
  }));
}

TEST(TerminalWebSocket, EnvironmentCwdAndSecrets) {
  Config s;
  s.policy = "endpoints:\n  pty_create: {params: {env_deny: [\"HIDDEN_*\"]}}\n";
  ServerProcess server(options(s));
  std::filesystem::create_directories(server.dir() + "/work");
  auto c = create(server, R"({"shell":"/bin/sh","cwd":")" + server.dir() +
                              R"(/work","env":{"FOO":"bar","HIDDEN_X":"no"}})");
  auto ws = attach(c);
  ws->input("echo \"[$FOO][$HIDDEN_X][$ABX_SERVER_TOKEN][$TERM]\"; pwd\n");
  EXPECT_TRUE(ws->waitOutput("[bar][][][xterm-256color]")) << ws->output;
  EXPECT_TRUE(ws->waitOutput(server.dir() + "/work")) << ws->output;
  EXPECT_THAT(ws->output, Not(HasSubstr(kToken)));
}

TEST(TerminalWebSocket, ShellsParamRestrictsTheShell) {
  Config s;
  s.policy = "endpoints:\n  pty_create: {params: {shells: [/bin/sh]}}\n";
  ServerProcess server(options(s));
  auto r = http(server.port(), "POST", "/pty/sessions", R"({"shell":"/bin/bash"})", kAuth);
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"shell_not_allowed")"));
  auto c = create(server, "{}");
  auto ws = attach(c);
  ws->input("echo \"[$BASH_VERSION]\"\n");
  EXPECT_TRUE(ws->waitOutput("[]\r\n")) << ws->output;  // sh, not bash
}

TEST(TerminalWebSocket, Utf8OutputIsValidJsonTextWhateverTheBytes) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto ws = attach(c);
  // 3000 euro signs (9000 bytes, so reads split them somewhere), an invalid
  // byte, then a marker. next() parses every frame as JSON.
  ws->input(
      "printf 'S'; i=0; while [ $i -lt 3000 ]; do printf '\\342\\202\\254'; i=$((i+1)); "
      "done; printf '\\377E\\n'\n");
  std::string euros;
  for (int i = 0; i < 3000; ++i) euros += "\xE2\x82\xAC";
  EXPECT_TRUE(ws->waitOutput("S" + euros +
                                 "\xEF\xBF\xBD"
                                 "E",
                             std::chrono::seconds(20)));
}

TEST(TerminalWebSocket, AFrameOverOneMebibyteClosesWith1009) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto ws = attach(c);
  ws->input(std::string((1u << 20) + 100, 'x'));
  EXPECT_EQ(ws->waitClose(), 1009);
  // The session survives its client.
  EXPECT_EQ(http(server.port(), "GET", "/pty/sessions/" + c.id, "", kAuth).status, 200);
}

TEST(TerminalWebSocket, FragmentsAreReassembledAndPingsAnswered) {
  constexpr int kFin = static_cast<int>(WebSocket::FRAME_FLAG_FIN);
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto ws = attach(c);
  const std::string message = R"({"type":"input","data":"echo frag-$((5*5))\n"})";
  // A text message in three fragments with a ping between them.
  ws->sendFrame(message.substr(0, 10), WebSocket::FRAME_OP_TEXT);
  ws->sendFrame("are you there", kFin | WebSocket::FRAME_OP_PING);
  ws->sendFrame(message.substr(10, 15), WebSocket::FRAME_OP_CONT);
  ws->sendFrame(message.substr(25), kFin | WebSocket::FRAME_OP_CONT);
  EXPECT_TRUE(ws->waitOutput("frag-25\r\n")) << ws->output;
  ASSERT_EQ(ws->pongs.size(), 1u);
  EXPECT_EQ(ws->pongs[0], "are you there");
  // A binary message is ignored; a stray continuation too.
  ws->sendFrame(R"({"type":"input","data":"echo bin\n"})", kFin | WebSocket::FRAME_OP_BINARY);
  ws->sendFrame("x", kFin | WebSocket::FRAME_OP_CONT);
  ws->input("echo after-$((2*2))\n");
  EXPECT_TRUE(ws->waitOutput("after-4\r\n")) << ws->output;
  EXPECT_EQ(ws->output.find("bin\r\n"), std::string::npos) << ws->output;
}

TEST(TerminalWebSocket, ANewClientTakesTheSessionOver) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto first = attach(c);
  auto second = attach(c);
  EXPECT_EQ(first->waitClose(), 1000);
  EXPECT_EQ(first->close_reason, "Another client attached to this session");
  second->input("echo second-$((3*3))\n");
  EXPECT_TRUE(second->waitOutput("second-9"));
}

TEST(TerminalWebSocket, ClientLeavingKeepsTheSession) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  {
    auto ws = attach(c);
    ws->input("X=kept\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  auto again = attach(c);
  again->input("echo \"v=$X\"\n");
  EXPECT_TRUE(again->waitOutput("v=kept"));
}

TEST(TerminalWebSocket, DeleteWhileAttachedEndsTheConnection) {
  ServerProcess server(options());
  auto c = create(server, R"({"shell":"/bin/sh"})");
  auto ws = attach(c);
  ASSERT_EQ(http(server.port(), "DELETE", "/pty/sessions/" + c.id, "", kAuth).status, 200);
  auto exited = ws->nextEvent();
  ASSERT_TRUE(exited);
  EXPECT_EQ(exited->getValue<std::string>("event"), "exited");
  EXPECT_EQ(ws->waitClose(), 1000);
}

TEST(TerminalWebSocket, ScopesOfPtyConnectApplyToHeadersAndTickets) {
  Config s;
  s.token = false;
  s.policy =
      "auth:\n  tokens:\n"
      "    - {id: ops, token_env: OPS_TOKEN, scopes: [\"terminal:use\"]}\n"
      "    - {id: viewer, token_env: VIEWER_TOKEN, scopes: [\"system:read\"]}\n"
      "    - {id: admin, token_env: ADMIN_TOKEN, scopes: [\"terminal:use\", \"terminal:admin\","
      " \"admin\"]}\n"
      "endpoints:\n  pty_connect: {scopes: [\"terminal:admin\"]}\n";
  auto o = options(s);
  o.env = {{"OPS_TOKEN", "ops-1"}, {"VIEWER_TOKEN", "viewer-1"}, {"ADMIN_TOKEN", "admin-1"}};
  ServerProcess server(o);
  const Headers ops = {{"X-Access-Token", "ops-1"}}, viewer = {{"X-Access-Token", "viewer-1"}},
                admin = {{"X-Access-Token", "admin-1"}};
  EXPECT_EQ(http(server.port(), "POST", "/pty/sessions", "{}", viewer).status, 403);
  // ops may create but not connect: its URL carries no ticket, its token is refused.
  auto c = create(server, R"({"shell":"/bin/sh"})", ops);
  EXPECT_TRUE(c.ticket.empty()) << c.url;
  auto r = http(c.port, "GET", "/pty?session_id=" + c.id, "", upgrade(ops));
  EXPECT_EQ(r.status, 403);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"missing_scope")"));
  EXPECT_THAT(r.body, HasSubstr(R"("scope":"terminal:admin")"));
  auto mine = create(server, R"({"shell":"/bin/sh"})", admin);
  EXPECT_FALSE(mine.ticket.empty());
  // ops's session: the scope `admin` lets this identity attach to it.
  EXPECT_TRUE(attach(c, admin));
  int status = 0;
  EXPECT_TRUE(WsClient::connect(mine.port, mine.target, {}, &status)) << status;
}

// ------------------------------------------------------------- policy

TEST(TerminalPolicy, ServiceIsNotListeningWhenPtyConnectIsDisabled) {
  Config s;
  s.pty_port = freePort();
  s.policy = "endpoints: {pty_connect: {enabled: false}}\n";
  ServerProcess server(options(s));
  EXPECT_FALSE(listening(s.pty_port));
  auto r = http(server.port(), "GET", "/pty", "", kAuth);
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"endpoint_disabled")"));
  // Sessions can still be made (and listed); their URL names the configured port.
  auto c = create(server, R"({"shell":"/bin/sh"})");
  EXPECT_EQ(c.port, s.pty_port);
  EXPECT_FALSE(listening(s.pty_port));

  // A reload that enables pty_connect starts the service ...
  std::ofstream(server.dir() + "/policy.yaml") << "endpoints: {pty_connect: {enabled: true}}\n";
  ::kill(server.pid(), SIGHUP);
  ASSERT_TRUE(eventually([&] { return listening(s.pty_port); }));
  auto ws = attach(c);
  // ... and one that disables it again stops it and ends its connections.
  std::ofstream(server.dir() + "/policy.yaml") << "groups: {terminal: false}\n";
  ::kill(server.pid(), SIGHUP);
  EXPECT_EQ(ws->waitClose(), 1001);
  EXPECT_TRUE(eventually([&] { return !listening(s.pty_port); }));
}

TEST(TerminalPolicy, ConfiguredPortIsServed) {
  Config s;
  s.pty_port = freePort();
  ServerProcess server(options(s));
  EXPECT_TRUE(listening(s.pty_port));
  auto c = create(server, R"({"shell":"/bin/sh"})");
  EXPECT_EQ(c.port, s.pty_port);
  EXPECT_THAT(server.stderrText(),
              HasSubstr("pty websocket listening on 127.0.0.1:" + std::to_string(s.pty_port)));
}

TEST(TerminalPolicy, ServerStopEndsShellsAndClients) {
  auto server = std::make_unique<ServerProcess>(options());
  auto c = create(*server, R"({"shell":"/bin/sh"})");
  auto ws = attach(c);
  EXPECT_EQ(server->stop(), 0);
  EXPECT_EQ(ws->waitClose(), 1001);
  EXPECT_TRUE(eventually([&] { return ::kill(c.pid, 0) != 0; }));
}

}  // namespace
}  // namespace abx::testing
