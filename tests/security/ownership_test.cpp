// Attack: one identity acting on another identity's background process or
// PTY session. bob holds process:manage and terminal:use like alice; he must
// see none of alice's resources (404 as for an id that never existed, lists
// without them), over REST and over the PTY WebSocket (token and ticket).
// root holds `admin` and acts on everything; alice acts on her own.
#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/WebSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "security/ownership_support.h"

namespace abx::testing::security {
namespace {

using Poco::Net::WebSocket;
using ::testing::HasSubstr;
using ::testing::Not;

// ---------------------------------------------------------------- processes

std::string startCat(const ServerProcess& server, const Headers& who) {
  auto r = http(server.port(), "POST", "/process/start", R"({"command":["cat"]})", who);
  EXPECT_EQ(r.status, 200) << r.body;
  return std::to_string(parseObject(r.body)->getValue<int>("pid"));
}

bool listed(const ServerProcess& server, const Headers& who, const std::string& pid) {
  auto r = http(server.port(), "GET", "/process/list", "", who);
  EXPECT_EQ(r.status, 200) << r.body;
  return r.body.find("\"pid\":" + pid + ",") != std::string::npos;
}

std::string outputOf(const ServerProcess& server, const Headers& who, const std::string& pid) {
  return http(server.port(), "GET", "/process/" + pid + "/output", "", who).body;
}

TEST(SecurityOwnershipProcess, AnotherIdentitySeesAndTouchesNothing) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const std::string pid = startCat(server, kAlice);
  const std::string bobs = startCat(server, kBob);
  const std::string unknown = "999999";
  auto missing = [&](const std::string& method, const std::string& suffix,
                     const std::string& body = "") {
    return http(port, method, "/process/" + unknown + suffix, body, kBob);
  };
  auto bob = [&](const std::string& method, const std::string& suffix,
                 const std::string& body = "") {
    return http(port, method, "/process/" + pid + suffix, body, kBob);
  };

  EXPECT_FALSE(listed(server, kBob, pid));
  EXPECT_TRUE(listed(server, kBob, bobs));
  EXPECT_FALSE(listed(server, kAlice, bobs));
  expectSameAsMissing(bob("GET", ""), missing("GET", ""), pid, unknown);
  expectSameAsMissing(bob("GET", "/output"), missing("GET", "/output"), pid, unknown);
  expectSameAsMissing(bob("POST", "/stdin", R"({"data":"bob-was-here\n"})"),
                      missing("POST", "/stdin", R"({"data":"bob-was-here\n"})"), pid, unknown);
  expectSameAsMissing(bob("POST", "/signal", R"({"signal":9})"),
                      missing("POST", "/signal", R"({"signal":9})"), pid, unknown);

  // alice's process is untouched: still running, bob's bytes never reached it.
  auto alice_stdin =
      http(port, "POST", "/process/" + pid + "/stdin", R"({"data":"alice-line\n"})", kAlice);
  EXPECT_EQ(alice_stdin.status, 200) << alice_stdin.body;
  EXPECT_TRUE(eventually(
      [&] { return outputOf(server, kAlice, pid).find("alice-line") != std::string::npos; }));
  EXPECT_THAT(outputOf(server, kAlice, pid), Not(HasSubstr("bob-was-here")));
  EXPECT_THAT(http(port, "GET", "/process/" + pid, "", kAlice).body,
              HasSubstr(R"("state":"running")"));
  EXPECT_TRUE(listed(server, kAlice, pid));

  // root (admin) sees and acts on alice's process.
  EXPECT_TRUE(listed(server, kRoot, pid));
  EXPECT_EQ(http(port, "GET", "/process/" + pid, "", kRoot).status, 200);
  EXPECT_EQ(
      http(port, "POST", "/process/" + pid + "/stdin", R"({"data":"root-line\n"})", kRoot).status,
      200);
  EXPECT_TRUE(eventually(
      [&] { return outputOf(server, kRoot, pid).find("root-line") != std::string::npos; }));
  EXPECT_EQ(http(port, "POST", "/process/" + pid + "/signal", R"({"signal":15})", kRoot).status,
            200);
  EXPECT_TRUE(eventually([&] {
    return http(port, "GET", "/process/" + pid, "", kAlice).body.find(R"("state":"exited")") !=
           std::string::npos;
  }));
  // alice signals her own.
  EXPECT_EQ(http(port, "POST", "/process/" + bobs + "/signal", R"({"signal":15})", kAlice).status,
            404);
  EXPECT_EQ(http(port, "POST", "/process/" + bobs + "/signal", R"({"signal":15})", kBob).status,
            200);
}

// ---------------------------------------------------------------- terminal

struct PtySession {
  std::string id;
  int ws_port = 0;
  std::string ticket;
};

PtySession createPty(const ServerProcess& server, const Headers& who) {
  auto r = http(server.port(), "POST", "/pty/sessions", R"({"shell":"/bin/sh"})", who);
  EXPECT_EQ(r.status, 200) << r.body;
  auto o = parseObject(r.body);
  PtySession s;
  s.id = o->getValue<std::string>("session_id");
  const auto url = o->getValue<std::string>("ws_url");  // ws://127.0.0.1:<port>/pty?...
  const auto colon = url.find(':', 5);
  s.ws_port = std::stoi(url.substr(colon + 1, url.find('/', colon) - colon - 1));
  if (auto t = url.find("&ticket="); t != std::string::npos) s.ticket = url.substr(t + 8);
  return s;
}

/** What a WebSocket client gets first: a refused handshake, a close, or a text frame. */
struct WsFirst {
  int status = 0; /**< 101 when upgraded */
  int close_code = 0;
  std::string close_reason;
  std::string text;
};

WsFirst wsFirst(int port, const std::string& target, const Headers& headers) {
  WsFirst out;
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  session.setTimeout(Poco::Timespan(10, 0));
  Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, target,
                                 Poco::Net::HTTPMessage::HTTP_1_1);
  for (const auto& [k, v] : headers)
    if (k != "Content-Type") request.add(k, v);
  Poco::Net::HTTPResponse response;
  std::unique_ptr<WebSocket> ws;
  try {
    ws = std::make_unique<WebSocket>(session, request, response);
  } catch (const Poco::Net::WebSocketException&) {
    out.status = static_cast<int>(response.getStatus());
    return out;
  }
  out.status = static_cast<int>(response.getStatus());
  ws->setReceiveTimeout(Poco::Timespan(10, 0));
  Poco::Buffer<char> buffer(0);
  int flags = 0;
  const int n = ws->receiveFrame(buffer, flags);
  const std::string payload(buffer.begin(), static_cast<std::size_t>(n > 0 ? n : 0));
  if ((flags & WebSocket::FRAME_OP_BITMASK) == WebSocket::FRAME_OP_CLOSE) {
    if (payload.size() >= 2) {
      out.close_code =
          (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
      out.close_reason = payload.substr(2);
    }
  } else {
    out.text = payload;
  }
  try {
    ws->shutdown();
  } catch (const Poco::Exception&) {
  }
  return out;
}

bool attached(const WsFirst& first) {
  return first.status == 101 && first.text.find(R"("event":"started")") != std::string::npos;
}

TEST(SecurityOwnershipTerminal, AnotherIdentitySeesAndTouchesNothingOverRest) {
  ServerProcess server(ownershipServer());
  const int port = server.port();
  const auto pty = createPty(server, kAlice);
  const std::string unknown = "0123456789ab";
  auto bob = [&](const std::string& method, const std::string& id, const std::string& suffix,
                 const std::string& body = "") {
    return http(port, method, "/pty/sessions/" + id + suffix, body, kBob);
  };

  auto list = http(port, "GET", "/pty/sessions", "", kBob);
  EXPECT_EQ(list.status, 200);
  EXPECT_THAT(list.body, Not(HasSubstr(pty.id)));
  expectSameAsMissing(bob("GET", pty.id, ""), bob("GET", unknown, ""), pty.id, unknown);
  const std::string size = R"({"cols":33,"rows":11})";
  expectSameAsMissing(bob("POST", pty.id, "/resize", size), bob("POST", unknown, "/resize", size),
                      pty.id, unknown);
  expectSameAsMissing(bob("DELETE", pty.id, ""), bob("DELETE", unknown, ""), pty.id, unknown);

  // Still alive and at its old size for alice.
  auto mine = http(port, "GET", "/pty/sessions/" + pty.id, "", kAlice);
  EXPECT_EQ(mine.status, 200) << mine.body;
  EXPECT_THAT(mine.body, HasSubstr(R"("alive":true)"));
  EXPECT_THAT(mine.body, Not(HasSubstr(R"("cols":33)")));
  EXPECT_THAT(http(port, "GET", "/pty/sessions", "", kAlice).body, HasSubstr(pty.id));
  EXPECT_EQ(http(port, "POST", "/pty/sessions/" + pty.id + "/resize", size, kAlice).status, 200);

  // root (admin) lists, reads, resizes and ends it.
  EXPECT_THAT(http(port, "GET", "/pty/sessions", "", kRoot).body, HasSubstr(pty.id));
  EXPECT_EQ(http(port, "GET", "/pty/sessions/" + pty.id, "", kRoot).status, 200);
  EXPECT_EQ(http(port, "POST", "/pty/sessions/" + pty.id + "/resize", size, kRoot).status, 200);
  EXPECT_EQ(http(port, "DELETE", "/pty/sessions/" + pty.id, "", kRoot).status, 200);
  EXPECT_EQ(http(port, "GET", "/pty/sessions/" + pty.id, "", kAlice).status, 404);
}

TEST(SecurityOwnershipTerminal, AnotherIdentityCannotAttachWithItsToken) {
  ServerProcess server(ownershipServer());
  const auto pty = createPty(server, kAlice);
  const std::string unknown = "0123456789ab";
  const auto bob = wsFirst(pty.ws_port, "/pty?session_id=" + pty.id, kBob);
  const auto none = wsFirst(pty.ws_port, "/pty?session_id=" + unknown, kBob);
  EXPECT_FALSE(attached(bob)) << bob.text;
  // The same close as for a session that does not exist.
  EXPECT_EQ(none.close_code, 1008);
  EXPECT_EQ(bob.status, none.status);
  EXPECT_EQ(bob.close_code, none.close_code);
  EXPECT_EQ(bob.close_reason, "Unknown session: " + pty.id);
  // alice's session was not taken over and stays free for its owner and root.
  EXPECT_THAT(http(server.port(), "GET", "/pty/sessions/" + pty.id, "", kAlice).body,
              HasSubstr(R"("alive":true)"));
  EXPECT_TRUE(attached(wsFirst(pty.ws_port, "/pty?session_id=" + pty.id, kAlice)));
  EXPECT_TRUE(attached(wsFirst(pty.ws_port, "/pty?session_id=" + pty.id, kRoot)));
}

TEST(SecurityOwnershipTerminal, ATicketOpensOnlyItsCreatorsSession) {
  ServerProcess server(ownershipServer());
  const auto alices = createPty(server, kAlice);
  const auto bobs = createPty(server, kBob);
  ASSERT_FALSE(bobs.ticket.empty());
  ASSERT_FALSE(alices.ticket.empty());
  // bob's ticket (for his own session) does not open alice's, with or without his token.
  auto stolen =
      wsFirst(alices.ws_port, "/pty?session_id=" + alices.id + "&ticket=" + bobs.ticket, {});
  EXPECT_FALSE(attached(stolen));
  EXPECT_EQ(stolen.status, 401);
  const auto fresh = createPty(server, kBob);
  auto with_token =
      wsFirst(alices.ws_port, "/pty?session_id=" + alices.id + "&ticket=" + fresh.ticket, kBob);
  EXPECT_FALSE(attached(with_token));
  EXPECT_EQ(with_token.close_reason, "Unknown session: " + alices.id);
  // A ticket speaks for its creator: each attaches to their own session with
  // it and nothing else (valid headers left fresh's ticket unspent).
  EXPECT_TRUE(attached(
      wsFirst(alices.ws_port, "/pty?session_id=" + alices.id + "&ticket=" + alices.ticket, {})));
  EXPECT_TRUE(attached(
      wsFirst(fresh.ws_port, "/pty?session_id=" + fresh.id + "&ticket=" + fresh.ticket, {})));
}

}  // namespace
}  // namespace abx::testing::security
