#include "ws_link.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "ws_protocol.h"

namespace abx::plugins::terminal {
namespace {

constexpr std::size_t kReadChunk = 64u << 10;
constexpr std::size_t kMaxPayload = 1u << 20;
constexpr std::size_t kMaxMessage = 1u << 20;

int duplicate(int fd) { return fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 0); }

}  // namespace

WsLink::WsLink(UpgradedSocket socket, std::shared_ptr<Session> session, std::uint64_t attachment,
               const BridgeOptions& options)
    : session_(std::move(session)),
      process_(session_->process()),
      attachment_(attachment),
      options_(options),
      socket_fd_(socket.fd),
      lease_(std::move(socket.lease)),
      reader_(kMaxPayload),
      out_(std::move(socket.unsent)) {
  reader_.append(socket.unread.data(), socket.unread.size());
}

WsLink::~WsLink() {
  if (master_fd_ >= 0) ::close(master_fd_);
  if (exit_fd_ >= 0) ::close(exit_fd_);
  if (state_ != State::done) session_->detach(attachment_);
  if (socket_fd_ >= 0) ::close(socket_fd_);
}

void WsLink::begin() {
  master_fd_ = duplicate(process_.masterFd());
  exit_fd_ = duplicate(process_.exitFd());
  if (socket_fd_ < 0 || master_fd_ < 0) return finish(BridgeEnd::client_gone);
  sendText(startedFrame(session_->id(), process_.pid()));
  handleFrames();  // what the client sent right behind its upgrade request
  flush();
}

bool WsLink::wantClient() const {
  return state_ == State::open && pending_.size() < options_.max_pending_input;
}

std::uint32_t WsLink::socketInterest() const {
  std::uint32_t events = out_.empty() ? 0u : std::uint32_t{EPOLLOUT};
  switch (state_) {
    case State::open:
      if (wantClient()) events |= EPOLLIN;
      break;
    case State::closing:
    case State::discarding:
      events |= EPOLLIN;
      break;
    case State::done:
      return 0;
    default:
      break;
  }
  return events;
}

std::uint32_t WsLink::masterInterest() const {
  if (state_ != State::open && state_ != State::draining) return 0;
  std::uint32_t events = 0;
  if (!master_eof_ && out_.size() < options_.max_pending_output) events |= EPOLLIN;
  if (!pending_.empty() && state_ == State::open) events |= EPOLLOUT;
  return events;
}

std::uint32_t WsLink::exitInterest() const {
  return state_ == State::open && exit_fd_ >= 0 ? std::uint32_t{EPOLLIN} : 0u;
}

void WsLink::onSocket(std::uint32_t events) {
  if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) flush();
  if (state_ == State::done) return;
  const bool reading = state_ == State::closing || state_ == State::discarding || wantClient();
  if (reading && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) readSocket();
  flush();
}

void WsLink::onMaster(std::uint32_t events) {
  if (!pending_.empty() && state_ == State::open && (events & (EPOLLOUT | EPOLLERR))) {
    writeMaster();
    handleFrames();  // input that waited for room in the pending buffer
  }
  if (state_ != State::open && state_ != State::draining) return flush();
  if (!master_eof_ && out_.size() < options_.max_pending_output &&
      (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
    readMaster();
  if (state_ == State::draining && master_eof_) finishDrain();
  flush();
}

void WsLink::onExit() {
  if (state_ != State::open) return;
  if (auto code = process_.poll()) startDrain(*code);
  flush();
}

void WsLink::tick(bool stopping, Clock::time_point now) {
  if (state_ == State::done) return;
  if (!out_.empty() && now - last_progress_ >= options_.send_timeout)
    return finish(BridgeEnd::client_gone);  // the client stopped reading
  switch (state_) {
    case State::open:
      if (stopping) {
        startClose(kCloseGoingAway, "PTY service stopping", BridgeEnd::stopping);
      } else if (!session_->attachedAs(attachment_)) {
        startClose(kCloseNormal, "Another client attached to this session", BridgeEnd::replaced);
      } else if (auto code = process_.poll()) {
        startDrain(*code);
      }
      break;
    case State::draining:
      // The quiet period counts only while the shell's output is being read.
      if (out_.size() >= options_.max_pending_output) quiet_end_ = now + options_.drain_quiet;
      if (master_eof_ || now >= quiet_end_ || now >= drain_end_) finishDrain();
      break;
    case State::closing:
    case State::discarding:
    case State::flushing:
      if (now >= close_end_) return finish(end_);
      break;
    default:
      break;
  }
  if ((state_ == State::open || state_ == State::draining) &&
      now - last_sent_ >= options_.ping_interval)
    queue(kFin | kOpPing, {});
  flush();
}

std::optional<WsLink::Clock::time_point> WsLink::deadline() const {
  switch (state_) {
    case State::draining:
      return std::min(quiet_end_, drain_end_);
    case State::closing:
    case State::discarding:
    case State::flushing:
      return close_end_;
    default:
      return std::nullopt;
  }
}

void WsLink::readSocket() {
  char buffer[16384];
  const ssize_t n = ::recv(socket_fd_, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
    return finish(state_ == State::open ? BridgeEnd::client_gone : end_);
  if (n < 0 || state_ == State::discarding) return;
  reader_.append(buffer, static_cast<std::size_t>(n));
  handleFrames();
}

void WsLink::handleFrames() {
  WsFrame frame;
  while (state_ == State::closing || wantClient()) {
    switch (reader_.next(frame)) {
      case WsFrameReader::Status::incomplete:
        return;
      case WsFrameReader::Status::too_big:
        if (state_ == State::closing) return finish(end_);
        // The frame's payload is still on the wire: the stream cannot be
        // resynchronised, so the connection ends (RFC 6455 §7.4.1) after
        // the rest of what the client sends is read away, so that closing
        // does not reset the connection before the close frame is read.
        queue(kFin | kOpClose, closePayload(kCloseTooBig, "Message too big"));
        state_ = State::discarding;
        end_ = BridgeEnd::client_gone;
        close_end_ = Clock::now() + options_.close_wait;
        return;
      case WsFrameReader::Status::frame:
        if (!handleFrame(frame)) return;
        break;
    }
  }
}

/** @return false when the connection stops taking frames. */
bool WsLink::handleFrame(const WsFrame& frame) {
  const int opcode = frame.flags & kOpcodeMask;
  const bool fin = (frame.flags & kFin) != 0;
  if (state_ == State::closing) {
    if (opcode == kOpClose) finish(end_);
    return state_ == State::closing;
  }
  switch (opcode) {
    case kOpClose:
      // Answer the closing handshake; the session stays for a reconnect.
      queue(kFin | kOpClose, closePayload(kCloseNormal, {}));
      state_ = State::flushing;
      end_ = BridgeEnd::client_closed;
      close_end_ = Clock::now() + options_.close_wait;
      return false;
    case kOpPing:
      queue(kFin | kOpPong, frame.payload);
      return true;
    case kOpText:
    case kOpBinary:
      message_ = frame.payload;
      message_text_ = opcode == kOpText;
      in_message_ = !fin;
      if (fin && message_text_) handleText(message_);
      return true;
    case kOpContinuation:
      if (!in_message_) return true;
      if (message_.size() + frame.payload.size() > kMaxMessage) {
        in_message_ = false;  // too big: dropped like any invalid frame
        message_text_ = false;
        return true;
      }
      message_ += frame.payload;
      if (fin) {
        in_message_ = false;
        if (message_text_) handleText(message_);
      }
      return true;
    default:  // pong and reserved opcodes
      return true;
  }
}

void WsLink::handleText(std::string_view text) {
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

void WsLink::readMaster() {
  char buffer[kReadChunk];
  const ssize_t r = ::read(master_fd_, buffer, sizeof buffer);
  if (r > 0) {
    forward(chunker_.feed(std::string_view(buffer, static_cast<std::size_t>(r))));
    if (state_ == State::draining) quiet_end_ = Clock::now() + options_.drain_quiet;
    return;
  }
  // EIO: no process has the terminal open any more (the shell is gone).
  if (r == 0 || (errno != EAGAIN && errno != EINTR)) master_eof_ = true;
}

void WsLink::writeMaster() {
  if (pending_.empty()) return;
  const ssize_t w = ::write(master_fd_, pending_.data(), pending_.size());
  if (w > 0) {
    pending_.erase(0, static_cast<std::size_t>(w));
  } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
    pending_.clear();  // the terminal is gone; the exit path reports it
  }
}

void WsLink::flush() {
  while (state_ != State::done && !out_.empty()) {
    const ssize_t n = ::send(socket_fd_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      out_.erase(0, static_cast<std::size_t>(n));
      last_progress_ = Clock::now();
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      return;
    } else {
      return finish(state_ == State::open || state_ == State::draining ? BridgeEnd::client_gone
                                                                       : end_);
    }
  }
  if (state_ == State::flushing) return finish(end_);
  if (state_ == State::discarding && !write_shut_) {
    ::shutdown(socket_fd_, SHUT_WR);
    write_shut_ = true;
  }
}

void WsLink::queue(int flags, std::string_view payload) {
  if (out_.empty()) last_progress_ = Clock::now();
  out_ += encodeFrame(flags, payload);
  last_sent_ = Clock::now();
}

void WsLink::sendText(const std::string& text) { queue(kFin | kOpText, text); }

void WsLink::forward(const std::string& text) {
  if (text.empty()) return;
  sendText(outputFrame(text));
  session_->touch();
}

void WsLink::startDrain(int exit_code) {
  exit_code_ = exit_code;
  state_ = State::draining;
  const auto now = Clock::now();
  drain_end_ = now + options_.drain_max;
  quiet_end_ = now + options_.drain_quiet;
  if (master_eof_) finishDrain();
}

/** The shell ended and its output is forwarded: the exited event, then close 1000. */
void WsLink::finishDrain() {
  forward(chunker_.flush());
  sendText(exitedFrame(session_->id(), exit_code_));
  startClose(kCloseNormal, "Session ended", BridgeEnd::exited);
}

void WsLink::startClose(std::uint16_t code, std::string_view reason, BridgeEnd end) {
  queue(kFin | kOpClose, closePayload(code, reason));
  state_ = State::closing;
  end_ = end;
  close_end_ = Clock::now() + options_.close_wait;
}

void WsLink::finish(BridgeEnd end) {
  if (state_ == State::done) return;
  state_ = State::done;
  end_ = end;
  session_->detach(attachment_);
}

void WsLink::abort() noexcept {
  try {
    finish(BridgeEnd::client_gone);
  } catch (...) {
    state_ = State::done;
  }
}

}  // namespace abx::plugins::terminal
