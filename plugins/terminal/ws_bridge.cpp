#include "ws_bridge.h"

#include <Poco/Buffer.h>
#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "utf8_chunker.h"
#include "ws_protocol.h"

namespace abx::plugins::terminal {
namespace {

using Poco::Net::WebSocket;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 64u << 10;
constexpr std::size_t kMaxMessage = 1u << 20;
constexpr int kFin = static_cast<int>(WebSocket::FRAME_FLAG_FIN);
constexpr int kPing = kFin | static_cast<int>(WebSocket::FRAME_OP_PING);
constexpr int kPong = kFin | static_cast<int>(WebSocket::FRAME_OP_PONG);

/**
 * Half-closes @p fd and reads away what the peer still sends, up to
 * @p limit, so that closing the socket does not reset the connection (which
 * could discard the close frame before the peer reads it).
 */
void discardInput(int fd, std::chrono::milliseconds limit) {
  ::shutdown(fd, SHUT_WR);
  const auto deadline = Clock::now() + limit;
  char sink[16384];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (::poll(&p, 1, static_cast<int>(std::max<long>(left.count(), 0))) <= 0) break;
    if (::recv(fd, sink, sizeof sink, 0) <= 0) break;
  }
}

class Pump {
 public:
  Pump(WebSocket& ws, const std::shared_ptr<Session>& session, const std::atomic<bool>& stopping,
       const BridgeOptions& options)
      : ws_(ws),
        session_(session),
        process_(session->process()),
        stopping_(stopping),
        options_(options),
        buffer_(kReadChunk) {}

  BridgeEnd run() {
    attachment_ = session_->attach();
    try {
      BridgeEnd end = loop();
      session_->detach(attachment_);
      return end;
    } catch (const std::exception&) {
      session_->detach(attachment_);
      return BridgeEnd::client_gone;
    }
  }

 private:
  BridgeEnd loop() {
    sendText(startedFrame(session_->id(), process_.pid()));
    while (true) {
      if (stopping_.load()) {
        closeWebSocket(ws_, WebSocket::WS_ENDPOINT_GOING_AWAY, "PTY service stopping");
        return BridgeEnd::stopping;
      }
      if (!session_->attachedAs(attachment_)) {
        closeWebSocket(ws_, WebSocket::WS_NORMAL_CLOSE, "Another client attached to this session");
        return BridgeEnd::replaced;
      }
      if (auto code = process_.poll()) return finish(*code);

      const bool want_client = pending_.size() < options_.max_pending_input;
      const int master = process_.masterFd();
      pollfd fds[3];
      nfds_t n = 0;
      fds[n++] = {ws_.impl()->sockfd(), static_cast<short>(want_client ? POLLIN : 0), 0};
      short master_events = 0;
      if (!master_eof_) master_events |= POLLIN;
      if (!pending_.empty()) master_events |= POLLOUT;
      fds[n++] = {master_eof_ && pending_.empty() ? -1 : master, master_events, 0};
      if (process_.exitFd() >= 0) fds[n++] = {process_.exitFd(), POLLIN, 0};
      const bool buffered = want_client && ws_.available() > 0;
      int ready = ::poll(fds, n, buffered ? 0 : static_cast<int>(options_.tick.count()));
      if (ready < 0 && errno != EINTR) return BridgeEnd::client_gone;

      if (!master_eof_ && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) readMaster();
      if (!pending_.empty() && (fds[1].revents & (POLLOUT | POLLERR))) writeMaster();
      if (want_client && (buffered || (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))) {
        if (auto end = readClient()) return *end;
      }
      if (Clock::now() - last_sent_ >= options_.ping_interval) {
        ws_.sendFrame("", 0, kPing);
        last_sent_ = Clock::now();
      }
    }
  }

  void sendText(const std::string& text) {
    ws_.sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
    last_sent_ = Clock::now();
  }

  void forward(const std::string& text) {
    if (text.empty()) return;
    sendText(outputFrame(text));
    session_->touch();
  }

  /** One read of the master; @return false when nothing was there. */
  bool readMaster() {
    const ssize_t r = ::read(process_.masterFd(), buffer_.data(), buffer_.size());
    if (r > 0) {
      forward(chunker_.feed(std::string_view(buffer_.data(), static_cast<std::size_t>(r))));
      return true;
    }
    // EIO: no process has the terminal open any more (the shell is gone).
    if (r == 0 || (errno != EAGAIN && errno != EINTR)) master_eof_ = true;
    return false;
  }

  void writeMaster() {
    const ssize_t w = ::write(process_.masterFd(), pending_.data(), pending_.size());
    if (w > 0) {
      pending_.erase(0, static_cast<std::size_t>(w));
    } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
      pending_.clear();  // the terminal is gone; the exit path reports it
    }
  }

  /** The shell ended: forward what it left, then the exited event. */
  BridgeEnd finish(int exit_code) {
    const auto deadline = Clock::now() + options_.drain_max;
    while (!master_eof_ && Clock::now() < deadline) {
      pollfd p{process_.masterFd(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(options_.drain_quiet.count())) <= 0) break;
      if (!readMaster() && !master_eof_) break;
    }
    forward(chunker_.flush());
    sendText(exitedFrame(session_->id(), exit_code));
    closeWebSocket(ws_, WebSocket::WS_NORMAL_CLOSE, "Session ended");
    return BridgeEnd::exited;
  }

  std::optional<BridgeEnd> readClient() {
    frame_.resize(0);
    int flags = 0;
    int n = 0;
    try {
      n = ws_.receiveFrame(frame_, flags);
    } catch (const Poco::Net::WebSocketException& e) {
      if (e.code() != WebSocket::WS_ERR_PAYLOAD_TOO_BIG) throw;
      // The frame's payload is still on the wire: the stream cannot be
      // resynchronised, so the connection ends (RFC 6455 §7.4.1).
      closeWebSocket(ws_, WebSocket::WS_PAYLOAD_TOO_BIG, "Message too big",
                     std::chrono::milliseconds(0));
      discardInput(ws_.impl()->sockfd(), std::chrono::milliseconds(1000));
      return BridgeEnd::client_gone;
    }
    const int opcode = flags & WebSocket::FRAME_OP_BITMASK;
    const bool fin = (flags & kFin) != 0;
    if (n == 0 && flags == 0) return BridgeEnd::client_gone;
    const std::string_view payload(frame_.begin(), static_cast<std::size_t>(n));
    switch (opcode) {
      case WebSocket::FRAME_OP_CLOSE:
        // Answer the closing handshake; the session stays for a reconnect.
        try {
          ws_.shutdown();
        } catch (const Poco::Exception&) {
        }
        return BridgeEnd::client_closed;
      case WebSocket::FRAME_OP_PING:
        ws_.sendFrame(payload.data(), static_cast<int>(payload.size()), kPong);
        last_sent_ = Clock::now();
        return std::nullopt;
      case WebSocket::FRAME_OP_TEXT:
      case WebSocket::FRAME_OP_BINARY:
        message_.assign(payload);
        message_text_ = opcode == WebSocket::FRAME_OP_TEXT;
        in_message_ = !fin;
        if (fin && message_text_) handle(message_);
        return std::nullopt;
      case WebSocket::FRAME_OP_CONT:
        if (!in_message_) return std::nullopt;
        if (message_.size() + payload.size() > kMaxMessage) {
          in_message_ = false;  // too big: dropped like any invalid frame
          message_text_ = false;
          return std::nullopt;
        }
        message_.append(payload);
        if (fin) {
          in_message_ = false;
          if (message_text_) handle(message_);
        }
        return std::nullopt;
      default:  // pong and reserved opcodes
        return std::nullopt;
    }
  }

  void handle(std::string_view text) {
    auto frame = parseClientFrame(text);
    if (!frame) return;  // invalid frames are ignored (spec §5.2)
    if (auto* input = std::get_if<InputFrame>(&*frame)) {
      pending_ += input->data;
      writeMaster();
    } else if (auto* resize = std::get_if<ResizeFrame>(&*frame)) {
      session_->resize(resize->cols, resize->rows);
    } else if (auto* sig = std::get_if<SignalFrame>(&*frame)) {
      process_.signal(sig->signal);
    }
    session_->touch();
  }

  WebSocket& ws_;
  std::shared_ptr<Session> session_;
  PtyProcess& process_;
  const std::atomic<bool>& stopping_;
  const BridgeOptions& options_;
  std::uint64_t attachment_ = 0;
  std::vector<char> buffer_;
  Poco::Buffer<char> frame_{0};
  Utf8Chunker chunker_;
  std::string pending_;
  std::string message_;
  bool in_message_ = false;
  bool message_text_ = false;
  bool master_eof_ = false;
  Clock::time_point last_sent_ = Clock::now();
};

}  // namespace

BridgeEnd runBridge(WebSocket& ws, const std::shared_ptr<Session>& session,
                    const std::atomic<bool>& stopping, const BridgeOptions& options) {
  return Pump(ws, session, stopping, options).run();
}

void closeWebSocket(WebSocket& ws, std::uint16_t code, std::string_view reason,
                    std::chrono::milliseconds wait) {
  try {
    ws.shutdown(code, std::string(reason));
    ws.setReceiveTimeout(Poco::Timespan(static_cast<long>(wait.count()) * 1000));
    Poco::Buffer<char> sink(0);
    const auto deadline = Clock::now() + wait;
    while (Clock::now() < deadline) {
      sink.resize(0);
      int flags = 0;
      const int n = ws.receiveFrame(sink, flags);
      if ((n == 0 && flags == 0) ||
          (flags & WebSocket::FRAME_OP_BITMASK) == WebSocket::FRAME_OP_CLOSE)
        break;
    }
  } catch (const std::exception&) {
    // The client went away first: nothing left to close politely.
  }
}

}  // namespace abx::plugins::terminal
