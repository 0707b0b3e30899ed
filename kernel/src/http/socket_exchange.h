// SocketExchange: one request on a connection the event loop handed to a
// worker — the parsed head, the body read from what the loop already
// buffered and then from the socket (never past Content-Length, so a
// pipelined next request stays for the loop), and the response written
// straight to the socket: one writev for a whole answer, Content-Length or
// chunked bodies, SSE streams.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/http_head.h"
#include "http/sse_writer.h"
#include "pipeline/exchange.h"

namespace abx::kernel {

/** Hands a connection to the event loop with what must live as long as its stream. */
using StreamDetacher =
    std::function<std::shared_ptr<sdk::SseWaker>(SseWriter::Handoff, std::shared_ptr<void> hold)>;

class SocketExchange final : public Exchange {
 public:
  /** @p buffered: bytes read past the head (the body's start, maybe a next request). */
  SocketExchange(int fd, sdk::RequestHead head, std::string buffered, SseHub& hub,
                 StreamDetacher detacher = {});

  std::string_view method() const override { return head_.method; }
  std::string_view target() const override { return head_.target; }
  std::vector<std::string_view> headerValues(std::string_view name) const override {
    return head_.values(name);
  }
  std::vector<std::pair<std::string, std::string>> headers() const override;
  std::optional<std::int64_t> contentLength() const override;
  bool readBody(std::string& out, std::size_t length) override;
  std::size_t readSome(char* buffer, std::size_t n) override;
  void send(const sdk::Response& response) override;
  void stream(const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer,
              std::shared_ptr<void> hold = {}) override;
  void addResponseHeader(const std::string& name, const std::string& value) override;
  std::string localAddress() const override;
  std::string peerAddress() const override;

  /** May the connection carry another request (answered whole, body consumed)? */
  bool reusable() const { return reusable_; }
  /** A stream handler detached the connection: the event loop owns it now. */
  bool detached() const { return detached_; }
  /** Bytes read past this request's body: the start of the next one. */
  std::string takeLeftover();

 private:
  /** Status line and headers; @p close adds "Connection: close". */
  std::string headLines(int status, const std::string& content_type,
                        const std::vector<std::pair<std::string, std::string>>& headers,
                        const std::string& framing, bool close) const;
  void sendStream(const sdk::Response& r, bool close);
  /** How a deferred answer of this request becomes bytes. */
  SseWriter::Renderer answerRenderer() const;
  /** Reads and drops what is left of the body, up to a bound; false beyond it. */
  bool drainUnread();
  std::size_t bodyLeft() const;

  int fd_;
  sdk::RequestHead head_;
  std::string buffered_;  // read, not yet consumed
  SseHub& hub_;
  StreamDetacher detacher_;
  std::vector<std::pair<std::string, std::string>> added_;
  std::uint64_t consumed_ = 0;
  bool reusable_ = false;
  bool detached_ = false;
};

}  // namespace abx::kernel
