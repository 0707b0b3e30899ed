// BridgeLoop, the one thread that serves every attached terminal, with
// short timers: pings after silence, a client that reads nothing dropped
// after the send timeout while another terminal keeps working, and stop()
// closing with 1001 and refusing new clients until reopen(). A small POCO
// server upgrades the connections, as the PTY port does.
#include <Poco/Buffer.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/WebSocket.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "pty_test_support.h"
#include "session_table.h"
#include "ws_bridge.h"

namespace abx::plugins::terminal {
namespace {

using Poco::Net::WebSocket;
using namespace std::chrono_literals;

/** Upgrades every request and hands it to the bridge with the session named by the URI. */
class Upgrader final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  Upgrader(BridgeLoop& bridge, SessionTable& table) : bridge_(bridge), table_(table) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new Handler(*this);
  }

 private:
  struct Handler final : Poco::Net::HTTPRequestHandler {
    explicit Handler(Upgrader& u) : u(u) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
      auto ws = std::make_unique<WebSocket>(request, response);
      auto session = u.table_.find(request.getURI().substr(1));
      if (!session || !u.bridge_.adopt(ws, session))
        ws->shutdown(WebSocket::WS_UNEXPECTED_CONDITION);
    }
    Upgrader& u;
  };
  BridgeLoop& bridge_;
  SessionTable& table_;
};

class WsBridgeLoop : public ::testing::Test {
 protected:
  void serve(BridgeOptions options) {
    bridge_ = std::make_unique<BridgeLoop>(options);
    Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
    port_ = socket.address().port();
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Upgrader(*bridge_, table_), socket,
                                                      new Poco::Net::HTTPServerParams);
    server_->start();
  }
  void TearDown() override {
    if (server_) server_->stopAll(true);
    if (bridge_) bridge_->stop();
    for (auto& s : table_.clear()) s->process().terminate(100ms);
  }

  std::shared_ptr<Session> add(std::vector<std::string> argv) {
    auto slot = table_.reserve();
    return table_.commit(std::move(*slot), testing::spawnOrDie(std::move(argv)), 80, 24, "alice");
  }

  std::unique_ptr<WebSocket> connect(const std::shared_ptr<Session>& session) {
    client_sessions_.push_back(std::make_unique<Poco::Net::HTTPClientSession>(
        "127.0.0.1", static_cast<Poco::UInt16>(port_)));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, "/" + session->id(),
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    Poco::Net::HTTPResponse response;
    auto ws = std::make_unique<WebSocket>(*client_sessions_.back(), request, response);
    ws->setReceiveTimeout(Poco::Timespan(5, 0));
    return ws;
  }

  /** The next frame's opcode and payload (opcode -1 on a timeout). */
  static std::pair<int, std::string> next(WebSocket& ws) {
    Poco::Buffer<char> buffer(0);
    int flags = 0;
    try {
      const int n = ws.receiveFrame(buffer, flags);
      return {flags & WebSocket::FRAME_OP_BITMASK,
              std::string(buffer.begin(), static_cast<std::size_t>(n))};
    } catch (const Poco::TimeoutException&) {
      return {-1, {}};
    }
  }

  SessionTable table_{{10, std::chrono::seconds(1800)}};
  std::unique_ptr<BridgeLoop> bridge_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
  std::vector<std::unique_ptr<Poco::Net::HTTPClientSession>> client_sessions_;
  int port_ = 0;
};

TEST_F(WsBridgeLoop, PingsAfterSilence) {
  BridgeOptions options;
  options.ping_interval = 1s;
  serve(options);
  auto session = add({"/bin/sleep", "30"});
  auto ws = connect(session);
  auto [op, started] = next(*ws);
  EXPECT_EQ(op, WebSocket::FRAME_OP_TEXT);
  EXPECT_NE(started.find(R"("event":"started")"), std::string::npos) << started;
  const auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(next(*ws).first, WebSocket::FRAME_OP_PING);
  EXPECT_GE(std::chrono::steady_clock::now() - before, 800ms);
  EXPECT_EQ(bridge_->size(), 1u);
  EXPECT_TRUE(session->connected());
}

TEST_F(WsBridgeLoop, AClientThatReadsNothingIsDroppedAndStallsNoOneElse) {
  BridgeOptions options;
  options.send_timeout = 1s;
  options.max_pending_output = 64u << 10;
  serve(options);
  auto flood = add({"/usr/bin/yes", "flood"});
  auto quiet = add({"/bin/cat"});
  auto stalled = connect(flood);  // never read
  auto ws = connect(quiet);
  ASSERT_EQ(next(*ws).first, WebSocket::FRAME_OP_TEXT);  // started
  const std::string input = R"({"type":"input","data":"hello\n"})";
  ws->sendFrame(input.data(), static_cast<int>(input.size()), WebSocket::FRAME_TEXT);
  std::string seen;
  for (int i = 0; i < 10 && seen.find("hello") == std::string::npos; ++i) seen += next(*ws).second;
  EXPECT_NE(seen.find("hello"), std::string::npos) << seen;
  // The flooded client's buffers fill, then nothing moves for the send timeout.
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (flood->connected() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(flood->connected());
  EXPECT_TRUE(quiet->connected());
  EXPECT_EQ(bridge_->size(), 1u);
}

TEST_F(WsBridgeLoop, StopClosesWith1001AndRefusesUntilReopened) {
  serve({});
  auto session = add({"/bin/sleep", "30"});
  auto ws = connect(session);
  ASSERT_EQ(next(*ws).first, WebSocket::FRAME_OP_TEXT);
  std::thread stopper([&] { bridge_->stop(); });
  auto [op, payload] = next(*ws);
  EXPECT_EQ(op, WebSocket::FRAME_OP_CLOSE);
  ASSERT_GE(payload.size(), 2u);
  EXPECT_EQ((static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]),
            WebSocket::WS_ENDPOINT_GOING_AWAY);
  EXPECT_EQ(payload.substr(2), "PTY service stopping");
  ws->shutdown();
  stopper.join();
  EXPECT_EQ(bridge_->size(), 0u);
  EXPECT_FALSE(session->connected());
  std::unique_ptr<WebSocket> none;
  EXPECT_FALSE(bridge_->adopt(none, session));
  bridge_->reopen();
  auto again = connect(session);
  EXPECT_EQ(next(*again).first, WebSocket::FRAME_OP_TEXT);
}

}  // namespace
}  // namespace abx::plugins::terminal
