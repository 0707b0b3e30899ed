#include "http/socket_exchange.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "http/socket_io.h"

namespace abx::kernel {
namespace {

// An unread body would be parsed as the next request: drain leftovers up to
// this much (so a client still sending gets its 413 instead of a reset),
// close the connection beyond.
constexpr std::size_t kMaxDrainBytes = 8u << 20;
constexpr std::size_t kStreamBuffer = 64 * 1024;

}  // namespace

SocketExchange::SocketExchange(int fd, sdk::RequestHead head, std::string buffered, SseHub& hub,
                               StreamDetacher detacher)
    : fd_(fd),
      head_(std::move(head)),
      buffered_(std::move(buffered)),
      hub_(hub),
      detacher_(std::move(detacher)) {}

std::vector<std::pair<std::string, std::string>> SocketExchange::headers() const {
  return head_.lowerCaseHeaders();
}

std::optional<std::int64_t> SocketExchange::contentLength() const {
  auto values = head_.values("Content-Length");
  if (values.empty()) return std::nullopt;
  std::int64_t n = -1;
  auto v = values.front();
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || values.size() > 1) return -1;
  return n;
}

std::size_t SocketExchange::bodyLeft() const {
  auto length = contentLength();
  if (!length || *length <= 0) return 0;
  auto total = static_cast<std::uint64_t>(*length);
  return static_cast<std::size_t>(total - std::min(consumed_, total));
}

std::size_t SocketExchange::readSome(char* buffer, std::size_t n) {
  n = std::min(n, bodyLeft());
  if (n == 0) return 0;
  if (!buffered_.empty()) {
    auto take = std::min(n, buffered_.size());
    std::copy_n(buffered_.data(), take, buffer);
    buffered_.erase(0, take);
    consumed_ += take;
    return take;
  }
  ssize_t got = kernel::readSome(fd_, buffer, n);
  if (got <= 0) return 0;
  consumed_ += static_cast<std::uint64_t>(got);
  return static_cast<std::size_t>(got);
}

bool SocketExchange::readBody(std::string& out, std::size_t length) {
  out.resize(length);
  std::size_t have = 0;
  while (have < length) {
    auto got = readSome(out.data() + have, length - have);
    if (got == 0) break;
    have += got;
  }
  out.resize(have);
  return have == length;
}

bool SocketExchange::drainUnread() {
  auto left = bodyLeft();
  if (left == 0) return true;
  if (left > kMaxDrainBytes) return false;
  char sink[16384];
  while (bodyLeft() > 0)
    if (readSome(sink, sizeof sink) == 0) return false;
  return true;
}

std::string SocketExchange::takeLeftover() { return std::exchange(buffered_, {}); }

void SocketExchange::addResponseHeader(const std::string& name, const std::string& value) {
  added_.emplace_back(name, value);
}

std::string SocketExchange::localAddress() const { return socketAddress(fd_, false); }
std::string SocketExchange::peerAddress() const { return socketAddress(fd_, true); }

namespace {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

std::string renderHead(int minor_version, const HeaderList& added, int status,
                       const std::string& content_type, const HeaderList& headers,
                       const std::string& framing, bool close) {
  std::string out;
  out.reserve(256);
  out += minor_version >= 1 ? "HTTP/1.1 " : "HTTP/1.0 ";
  out += std::to_string(status);
  out += ' ';
  out += sdk::reasonPhrase(status);
  out += "\r\nDate: ";
  out += httpDate();
  out += "\r\n";
  if (!content_type.empty()) out += "Content-Type: " + content_type + "\r\n";
  for (const auto& list : {&added, &headers})
    for (const auto& [name, value] : *list) {
      if (sdk::equalsIgnoreCase(name, "Connection")) continue;
      out += name + ": " + value + "\r\n";
    }
  out += framing;
  if (close)
    out += "Connection: close\r\n";
  else if (minor_version == 0)
    out += "Connection: keep-alive\r\n";
  out += "\r\n";
  return out;
}

}  // namespace

std::string SocketExchange::headLines(int status, const std::string& content_type,
                                      const HeaderList& headers, const std::string& framing,
                                      bool close) const {
  return renderHead(head_.minor_version, added_, status, content_type, headers, framing, close);
}

SseWriter::Renderer SocketExchange::answerRenderer() const {
  // Copies: a deferred answer is rendered after this exchange is gone. It
  // ends the connection, so the client never waits for more on it.
  return [minor = head_.minor_version, added = added_,
          bodiless = head_.method == "HEAD"](const sdk::Response& r) {
    std::string out = renderHead(minor, added, r.status, r.content_type, r.headers,
                                 "Content-Length: " + std::to_string(r.body.size()) + "\r\n", true);
    if (!bodiless) out += r.body;
    return out;
  };
}

void SocketExchange::send(const sdk::Response& r) {
  bool close = !head_.keepAlive();
  for (const auto& [name, value] : r.headers)
    if (sdk::equalsIgnoreCase(name, "Connection") && sdk::equalsIgnoreCase(value, "close"))
      close = true;
  // Drained even when closing: a client still sending would otherwise meet
  // a reset instead of this answer.
  if (!drainUnread()) close = true;
  if (r.body_stream) {
    sendStream(r, close);
    return;
  }
  auto head = headLines(r.status, r.content_type, r.headers,
                        "Content-Length: " + std::to_string(r.body.size()) + "\r\n", close);
  bool sent = writeAll(fd_, {head, r.body});
  reusable_ = sent && !close;
}

// A body produced while it is sent, in bounded memory, with a known length
// or chunked (close-delimited for HTTP/1.0). A producer that fails part-way
// ends the connection, so the client never mistakes a truncated body for a
// whole one.
void SocketExchange::sendStream(const sdk::Response& r, bool close) {
  const bool sized = r.stream_length >= 0;
  const bool chunked = !sized && head_.minor_version >= 1;
  close = close || (!sized && !chunked);
  std::string framing = sized     ? "Content-Length: " + std::to_string(r.stream_length) + "\r\n"
                        : chunked ? std::string("Transfer-Encoding: chunked\r\n")
                                  : std::string();
  struct Writer final : sdk::BodyWriter {
    int fd;
    bool chunked;
    std::int64_t left;  // what the Content-Length still allows (sized bodies)
    std::string buffer;
    bool ok = true;
    bool flush() {
      if (buffer.empty() || !ok) return ok;
      char size[24];
      int n = std::snprintf(size, sizeof size, "%zx\r\n", buffer.size());
      ok = chunked
               ? writeAll(fd, {std::string_view(size, static_cast<std::size_t>(n)), buffer, "\r\n"})
               : writeAll(fd, {buffer});
      buffer.clear();
      return ok;
    }
    bool write(std::string_view bytes) override {
      // Never more than the Content-Length: the next response would be misread.
      if (left >= 0) {
        bytes = bytes.substr(0, static_cast<std::size_t>(std::min<std::int64_t>(
                                    left, static_cast<std::int64_t>(bytes.size()))));
        left -= static_cast<std::int64_t>(bytes.size());
      }
      buffer.append(bytes);
      return buffer.size() < kStreamBuffer || flush();
    }
  };
  Writer writer;
  writer.fd = fd_;
  writer.chunked = chunked;
  writer.left = sized ? r.stream_length : -1;
  bool ok = writeAll(fd_, {headLines(r.status, r.content_type, r.headers, framing, close)});
  try {
    ok = ok && r.body_stream(writer) && writer.flush();
  } catch (...) {
    ok = false;
  }
  if (ok && chunked) ok = writeAll(fd_, {"0\r\n\r\n"});
  // A body shorter than its Content-Length can only end with the connection.
  if (sized && writer.left != 0) ok = false;
  // Closing the socket is the only honest end of a broken body.
  reusable_ = ok && !close;
}

void SocketExchange::stream(
    const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer,
    std::shared_ptr<void> hold) {
  std::string head = headLines(200, "text/event-stream",
                               {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}},
                               "Transfer-Encoding: chunked\r\n", true);
  std::optional<sdk::Response> reply;
  bool begun = false;
  {
    SseWriter::Detacher detacher;
    if (detacher_)
      detacher = [this, hold](SseWriter::Handoff handoff) {
        return detacher_(std::move(handoff), hold);
      };
    SseWriter writer(fd_, std::move(head), hub_, std::move(detacher), answerRenderer());
    reply = producer(writer);
    if (writer.detached()) {
      // The event loop writes the rest; a reply returned after detaching has nowhere to go.
      detached_ = true;
      reusable_ = false;
      return;
    }
    begun = writer.begun();
    if (begun) writer.finish();
  }
  if (!begun) {
    if (!reply) reply = sdk::Response::json("{}", 200);
    send(*reply);
    return;
  }
  // A stream ends its connection: clients reconnect with Last-Event-ID.
  reusable_ = false;
}

}  // namespace abx::kernel
