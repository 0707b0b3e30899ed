// BridgeLoop, the PTY port's one thread, with short timers and a client on
// a raw socket: the 101 with its accept key and frames sent right behind
// the upgrade request, pings after silence, a client that reads nothing
// dropped after the send timeout while another terminal keeps working, a
// half-sent head cut off at its deadline, the oldest half-open handshake
// dropped at the cap, the 1008 closing handshake, and stop() closing with
// 1001 before start() serves again. The judge attaches each request to the
// session its path names.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "pty_test_support.h"
#include "session_table.h"
#include "ws_bridge.h"
#include "ws_frame.h"

namespace abx::plugins::terminal {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kKey = "dGhlIHNhbXBsZSBub25jZQ==";

/** A WebSocket client on a blocking socket (5 s receive timeout). */
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) ADD_FAILURE();
  }
  ~RawClient() { ::close(fd_); }

  void write(const std::string& bytes) { ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  /** Sends an upgrade request for @p target (and @p behind in the same write); @return the answer's
   * head. */
  std::string upgrade(const std::string& target, const std::string& behind = {}) {
    write("GET " + target +
          " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
          "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
          kKey + "\r\n\r\n" + behind);
    std::string in;
    char c;
    while (in.find("\r\n\r\n") == std::string::npos && ::recv(fd_, &c, 1, 0) == 1) in += c;
    return in;
  }
  /** One masked frame, as a client must send it. */
  void send(int flags, const std::string& payload) { write(masked(flags, payload)); }
  static std::string masked(int flags, const std::string& payload) {
    std::string frame = encodeFrame(flags, payload);
    const std::size_t header = frame.size() - payload.size();
    const char key[4] = {0x11, 0x22, 0x33, 0x44};
    frame[1] = static_cast<char>(frame[1] | 0x80);
    frame.insert(header, key, 4);
    for (std::size_t i = 0; i < payload.size(); ++i) frame[header + 4 + i] ^= key[i & 3];
    return frame;
  }
  /** The next frame's opcode and payload (opcode -1 on a timeout or the end of the stream). */
  std::pair<int, std::string> next() {
    WsFrame frame;
    while (reader_.next(frame) != WsFrameReader::Status::frame) {
      char buffer[4096];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return {-1, {}};
      reader_.append(buffer, static_cast<std::size_t>(n));
    }
    return {frame.flags & kOpcodeMask, frame.payload};
  }
  /** True when the server closed the connection within @p wait. */
  bool closedWithin(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char byte;
    return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
  }

 private:
  int fd_;
  WsFrameReader reader_{2u << 20};
};

int closeCode(const std::string& payload) {
  return payload.size() < 2 ? 0
                            : (static_cast<unsigned char>(payload[0]) << 8) |
                                  static_cast<unsigned char>(payload[1]);
}

class WsBridgeLoop : public ::testing::Test {
 protected:
  void serve(BridgeOptions options) {
    bridge_ = std::make_unique<BridgeLoop>(
        options, [this](const sdk::RequestHead& head, const std::string&) {
          HandshakeDecision decision;
          decision.answer = switchingProtocols(head.header("Sec-WebSocket-Key").value_or(""));
          decision.session = table_.find(head.target.substr(1));
          decision.kind =
              decision.session ? HandshakeDecision::Kind::attach : HandshakeDecision::Kind::close;
          decision.close_code = kClosePolicyViolation;
          decision.close_reason = "Unknown session";
          return decision;
        });
    listen();
  }
  /** Listens on 127.0.0.1 (the same port again after a stop). */
  void listen() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(fd, 64), 0);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ASSERT_TRUE(bridge_->start(fd));
  }
  void TearDown() override {
    if (bridge_) bridge_->stop();
    for (auto& s : table_.clear()) s->process().terminate(100ms);
  }

  std::shared_ptr<Session> add(std::vector<std::string> argv) {
    auto slot = table_.reserve();
    return table_.commit(std::move(*slot), testing::spawnOrDie(std::move(argv)), 80, 24, "alice");
  }

  /** A client attached to @p session, its 101 read. */
  std::unique_ptr<RawClient> connect(const std::shared_ptr<Session>& session) {
    auto client = std::make_unique<RawClient>(port_);
    const auto head = client->upgrade("/" + session->id());
    EXPECT_EQ(head.rfind("HTTP/1.1 101 ", 0), 0u) << head;
    return client;
  }

  template <class F>
  static bool eventually(F done, std::chrono::milliseconds timeout = 5s) {
    const auto deadline = Clock::now() + timeout;
    while (!done() && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
    return done();
  }

  SessionTable table_{{10, std::chrono::seconds(1800)}};
  std::unique_ptr<BridgeLoop> bridge_;
  int port_ = 0;
};

TEST_F(WsBridgeLoop, UpgradesWithTheAcceptKeyAndReadsFramesSentBehindTheRequest) {
  serve({});
  auto session = add({"/bin/cat"});
  RawClient client(port_);
  const std::string input = R"({"type":"input","data":"behind\n"})";
  const auto head = client.upgrade("/" + session->id(), RawClient::masked(kFin | kOpText, input));
  EXPECT_EQ(head.rfind("HTTP/1.1 101 Switching Protocols\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), std::string::npos);
  auto [op, started] = client.next();
  EXPECT_EQ(op, kOpText);
  EXPECT_NE(started.find(R"("event":"started")"), std::string::npos) << started;
  std::string seen;
  for (int i = 0; i < 10 && seen.find("behind") == std::string::npos; ++i)
    seen += client.next().second;
  EXPECT_NE(seen.find("behind"), std::string::npos) << seen;
  EXPECT_TRUE(eventually([&] { return bridge_->handshakes() == 0u; }));
}

TEST_F(WsBridgeLoop, PingsAfterSilence) {
  BridgeOptions options;
  options.ping_interval = 1s;
  serve(options);
  auto session = add({"/bin/sleep", "30"});
  auto ws = connect(session);
  auto [op, started] = ws->next();
  EXPECT_EQ(op, kOpText);
  EXPECT_NE(started.find(R"("event":"started")"), std::string::npos) << started;
  const auto before = Clock::now();
  EXPECT_EQ(ws->next().first, kOpPing);
  EXPECT_GE(Clock::now() - before, 800ms);
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
  ASSERT_EQ(ws->next().first, kOpText);  // started
  ws->send(kFin | kOpText, R"({"type":"input","data":"hello\n"})");
  std::string seen;
  for (int i = 0; i < 10 && seen.find("hello") == std::string::npos; ++i) seen += ws->next().second;
  EXPECT_NE(seen.find("hello"), std::string::npos) << seen;
  // The flooded client's buffers fill, then nothing moves for the send timeout.
  EXPECT_TRUE(eventually([&] { return !flood->connected(); }, 15s));
  EXPECT_TRUE(quiet->connected());
  EXPECT_EQ(bridge_->size(), 1u);
}

TEST_F(WsBridgeLoop, AHalfSentHeadIsCutOffAtItsDeadline) {
  BridgeOptions options;
  options.handshake_timeout = 600ms;
  serve(options);
  RawClient slow(port_);
  const auto start = Clock::now();
  // Never idle, never done: one more byte every 100 ms.
  slow.write("GET /x HTTP/1.1\r\nX-Slow: ");
  bool closed = false;
  while (!closed && Clock::now() - start < 5s) {
    slow.write("a");
    closed = slow.closedWithin(100ms);
  }
  EXPECT_TRUE(closed);
  EXPECT_GE(Clock::now() - start, 500ms);
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_TRUE(eventually([&] { return bridge_->handshakes() == 0; }));
}

TEST_F(WsBridgeLoop, AtTheCapTheOldestHalfOpenHandshakeMakesRoom) {
  BridgeOptions options;
  options.max_handshakes = 3;
  serve(options);
  std::vector<std::unique_ptr<RawClient>> half;
  for (int i = 0; i < 3; ++i) {
    half.push_back(std::make_unique<RawClient>(port_));
    half.back()->write("GET /x HTTP/1.1\r\n");
    ASSERT_TRUE(eventually([&] { return bridge_->handshakes() == half.size(); }));
  }
  auto session = add({"/bin/cat"});
  auto ws = connect(session);  // the fourth: the first half-open one is dropped
  EXPECT_EQ(ws->next().first, kOpText);
  EXPECT_TRUE(half[0]->closedWithin(2s));
  EXPECT_FALSE(half[1]->closedWithin(0ms));
  EXPECT_FALSE(half[2]->closedWithin(0ms));
  EXPECT_TRUE(eventually([&] { return bridge_->handshakes() == 2u; }));  // reaped after its turn
}

TEST_F(WsBridgeLoop, AnUnknownSessionIsUpgradedThenClosedWith1008) {
  serve({});
  RawClient client(port_);
  EXPECT_EQ(client.upgrade("/nope").rfind("HTTP/1.1 101 ", 0), 0u);
  auto [op, payload] = client.next();
  EXPECT_EQ(op, kOpClose);
  EXPECT_EQ(closeCode(payload), kClosePolicyViolation);
  EXPECT_EQ(payload.substr(2), "Unknown session");
  EXPECT_FALSE(client.closedWithin(200ms));  // the server awaits the client's close frame
  client.send(kFin | kOpClose, closePayload(kCloseNormal, {}));
  EXPECT_TRUE(client.closedWithin(2s));
  EXPECT_TRUE(eventually([&] { return bridge_->handshakes() == 0; }));
}

TEST_F(WsBridgeLoop, StopClosesWith1001AndStartServesAgain) {
  serve({});
  auto session = add({"/bin/sleep", "30"});
  auto ws = connect(session);
  ASSERT_EQ(ws->next().first, kOpText);
  std::thread stopper([&] { bridge_->stop(); });
  auto [op, payload] = ws->next();
  EXPECT_EQ(op, kOpClose);
  EXPECT_EQ(closeCode(payload), kCloseGoingAway);
  EXPECT_EQ(payload.substr(2), "PTY service stopping");
  ws->send(kFin | kOpClose, closePayload(kCloseGoingAway, {}));
  stopper.join();
  EXPECT_EQ(bridge_->size(), 0u);
  EXPECT_FALSE(session->connected());
  EXPECT_TRUE(ws->closedWithin(1s));
  listen();
  auto again = connect(session);
  EXPECT_EQ(again->next().first, kOpText);
}

}  // namespace
}  // namespace abx::plugins::terminal
