#include "ws_handshake.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <variant>

namespace abx::plugins::terminal {
namespace {

// After our close frame only a close frame matters: a client's larger frame
// ends the wait instead of being buffered.
constexpr std::size_t kMaxFrameWhileClosing = 4096;

bool wouldBlock() { return errno == EAGAIN || errno == EWOULDBLOCK; }

}  // namespace

WsHandshake::WsHandshake(int fd, Clock::time_point deadline, std::chrono::milliseconds close_wait)
    : fd_(fd), deadline_(deadline), close_wait_(close_wait), frames_(kMaxFrameWhileClosing) {}

WsHandshake::~WsHandshake() {
  if (fd_ >= 0) ::close(fd_);
}

std::uint32_t WsHandshake::interest() const {
  switch (state_) {
    case State::reading:
    case State::closing:
      return EPOLLIN;
    case State::writing:
      return EPOLLOUT;
    default:
      return 0;
  }
}

void WsHandshake::onSocket(std::uint32_t events) {
  if (state_ == State::reading && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) readHead();
  if (state_ == State::writing && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) flush();
  if (state_ == State::closing && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) readClose();
}

void WsHandshake::tick(Clock::time_point now) {
  if (state_ != State::done && now >= deadline_) finish();
}

void WsHandshake::readHead() {
  char buffer[4096];
  while (state_ == State::reading) {
    // Never more than a little past the limit, whatever the client sends.
    const std::size_t room = std::min(sizeof buffer, kMaxHeadBytes + 4 - in_.size());
    const ssize_t n = ::recv(fd_, buffer, room, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && wouldBlock()) return;
    if (n <= 0) return finish();
    const std::size_t scanned = in_.size() < 3 ? 0 : in_.size() - 3;
    in_.append(buffer, static_cast<std::size_t>(n));
    auto end = sdk::headEnd(std::string_view(in_).substr(scanned));
    if (end == std::string_view::npos) {
      if (in_.size() > kMaxHeadBytes) return refuse(431, "Request header fields too large");
      continue;
    }
    end += scanned;
    if (end > kMaxHeadBytes) return refuse(431, "Request header fields too large");
    auto parsed = sdk::parseRequestHead(std::string_view(in_).substr(0, end), kMaxHeaderFields);
    if (auto* error = std::get_if<sdk::HeadError>(&parsed))
      return refuse(error->status, error->message);
    head_ = std::move(std::get<sdk::RequestHead>(parsed));
    in_.erase(0, end);  // what follows the head: the client's first frames
    state_ = State::judging;
  }
}

void WsHandshake::refuse(int status, const std::string& message) {
  HandshakeDecision refusal;
  refusal.answer = httpAnswer(sdk::Response::error(status, message, "ValueError"));
  answer(refusal);
}

void WsHandshake::answer(const HandshakeDecision& decision) {
  out_ = decision.answer;
  close_after_write_ = decision.kind != HandshakeDecision::Kind::close;
  if (!close_after_write_) {
    out_ += encodeFrame(kFin | kOpClose, closePayload(decision.close_code, decision.close_reason));
    frames_.append(in_.data(), in_.size());
  }
  in_.clear();
  state_ = State::writing;
  deadline_ = Clock::now() + close_wait_;
  flush();
}

UpgradedSocket WsHandshake::upgrade(HandshakeDecision& decision) {
  UpgradedSocket socket;
  socket.fd = fd_;
  socket.unsent = std::move(decision.answer);
  socket.unread = std::move(in_);
  socket.lease = std::move(decision.lease);
  fd_ = -1;
  state_ = State::done;
  return socket;
}

void WsHandshake::flush() {
  while (!out_.empty()) {
    const ssize_t n = ::send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      out_.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && wouldBlock()) {
      return;
    } else {
      return finish();
    }
  }
  if (!close_after_write_) {
    state_ = State::closing;
    deadline_ = Clock::now() + close_wait_;
    return readClose();  // the client may have closed already
  }
  // Read away what the client sent after its head, so that closing with
  // unread bytes does not reset the connection before it read the answer.
  char sink[4096];
  for (int i = 0; i < 16 && ::recv(fd_, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
  }
  finish();
}

void WsHandshake::readClose() {
  char buffer[4096];
  WsFrame frame;
  while (state_ == State::closing) {
    switch (frames_.next(frame)) {
      case WsFrameReader::Status::frame:
        if ((frame.flags & kOpcodeMask) == kOpClose) return finish();
        continue;
      case WsFrameReader::Status::too_big:
        return finish();
      case WsFrameReader::Status::incomplete:
        break;
    }
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && wouldBlock()) return;
    if (n <= 0) return finish();
    frames_.append(buffer, static_cast<std::size_t>(n));
  }
}

void WsHandshake::finish() {
  state_ = State::done;
  in_.clear();
  out_.clear();
}

}  // namespace abx::plugins::terminal
