#include "http/http_server.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/String.h>
#include <Poco/ThreadPool.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <thread>

namespace abx::kernel {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

class PocoExchange final : public Exchange {
 public:
  PocoExchange(HTTPServerRequest& request, HTTPServerResponse& response, SseHub& hub)
      : request_(request), response_(response), hub_(hub) {}

  std::string_view method() const override { return request_.getMethod(); }
  std::string_view target() const override { return request_.getURI(); }

  std::vector<std::string_view> headerValues(std::string_view name) const override {
    std::vector<std::string_view> out;
    std::string key(name);
    for (auto it = request_.find(key); it != request_.end() && Poco::icompare(it->first, key) == 0;
         ++it)
      out.emplace_back(it->second);
    return out;
  }

  std::vector<std::pair<std::string, std::string>> headers() const override {
    std::vector<std::pair<std::string, std::string>> out;
    out.reserve(request_.size());
    for (const auto& [name, value] : request_) out.emplace_back(Poco::toLower(name), value);
    return out;
  }

  std::optional<std::int64_t> contentLength() const override {
    auto values = headerValues("Content-Length");
    if (values.empty()) return std::nullopt;
    std::int64_t n = -1;
    auto v = values.front();
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 0 || values.size() > 1) return -1;
    return n;
  }

  std::size_t readSome(char* buffer, std::size_t n) override {
    auto& in = request_.stream();
    in.read(buffer, static_cast<std::streamsize>(n));
    auto got = static_cast<std::size_t>(in.gcount());
    consumed_ += got;
    return got;
  }

  bool readBody(std::string& out, std::size_t length) override {
    out.resize(length);
    auto& in = request_.stream();
    in.read(out.data(), static_cast<std::streamsize>(length));
    consumed_ += static_cast<std::size_t>(in.gcount());
    if (static_cast<std::size_t>(in.gcount()) != length) {
      out.resize(static_cast<std::size_t>(in.gcount()));
      return false;
    }
    return true;
  }

  void send(const sdk::Response& r) override {
    response_.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(r.status));
    response_.setContentType(r.content_type);
    bool close = false;
    for (const auto& [name, value] : r.headers) {
      if (Poco::icompare(name, "Connection") == 0 && Poco::icompare(value, "close") == 0)
        close = true;
      else
        response_.set(name, value);
    }
    if (close || !drainUnread()) response_.setKeepAlive(false);
    if (r.body_stream) {
      sendStream(r);
      return;
    }
    // One buffer: headers and body leave in one send (with TCP_NODELAY set on
    // the socket, a split write would not wait for a delayed ACK either).
    response_.sendBuffer(r.body.data(), r.body.size());
  }

  // A body produced while it is sent: in bounded memory, with a known
  // Content-Length or chunked. A producer that fails part-way closes the
  // connection, so the client never mistakes a truncated body for a whole.
  void sendStream(const sdk::Response& r) {
    if (r.stream_length >= 0)
      response_.setContentLength64(r.stream_length);
    else
      response_.setChunkedTransferEncoding(true);
    bool ok = false;
    try {
      std::ostream& out = response_.send();
      Poco::Net::StreamSocket* direct = nullptr;
      if (r.stream_length >= 0)
        direct = &static_cast<Poco::Net::HTTPServerRequestImpl&>(request_).socket();
      StreamWriter writer(out, direct, r.stream_length);
      ok = r.body_stream(writer) && out.good();
      out.flush();
      ok = ok && out.good();
    } catch (...) {
      ok = false;
    }
    // Closing the socket is the only honest end of a broken body.
    if (!ok) {
      try {
        static_cast<Poco::Net::HTTPServerRequestImpl&>(request_).socket().shutdown();
      } catch (...) {
      }
    }
  }

  // The response stream sends what it is given in 4 KiB pieces (POCO's HTTP
  // buffer), one send(2) each: for a large download those calls were most of
  // the server's time (docs/performance.md, "File streaming"). So a large
  // piece of a body of known length goes to the socket in one call, after
  // what the stream holds. Like the stream, the writer never sends more than
  // the Content-Length: extra bytes are dropped.
  struct StreamWriter final : sdk::BodyWriter {
    static constexpr std::size_t kDirect = 16u << 10;
    std::ostream& out;
    Poco::Net::StreamSocket* socket;  // null: chunked, always through the stream
    std::int64_t left;                // bytes the Content-Length still allows

    StreamWriter(std::ostream& o, Poco::Net::StreamSocket* s, std::int64_t length)
        : out(o), socket(s), left(length) {}

    bool write(std::string_view bytes) override {
      if (socket) {
        bytes = bytes.substr(
            0, static_cast<std::size_t>(std::min<std::int64_t>(left, std::ssize(bytes))));
        left -= std::ssize(bytes);
      }
      if (!socket || bytes.size() < kDirect) {
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return out.good();
      }
      out.flush();
      if (!out.good()) return false;
      try {
        while (!bytes.empty()) {
          auto piece = static_cast<int>(std::min<std::size_t>(bytes.size(), 1u << 30));
          int sent = socket->sendBytes(bytes.data(), piece);
          if (sent <= 0) return false;
          bytes.remove_prefix(static_cast<std::size_t>(sent));
        }
      } catch (...) {
        return false;  // a timeout or a reset, as the stream would report it
      }
      return true;
    }
  };

  void addResponseHeader(const std::string& name, const std::string& value) override {
    // Set on the response object itself, so both send() and the SSE writer
    // carry it.
    response_.add(name, value);
  }

  std::string localAddress() const override {
    try {
      return static_cast<Poco::Net::HTTPServerRequestImpl&>(request_)
          .socket()
          .address()
          .host()
          .toString();
    } catch (...) {
      return {};
    }
  }

  void stream(
      const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer) override {
    std::optional<sdk::Response> reply;
    bool begun = false;
    {
      SseWriter writer(response_, hub_);
      reply = producer(writer);
      begun = writer.begun();
    }
    if (!begun) {
      if (!reply) reply = sdk::Response::json("{}", 200);
      send(*reply);
    }
  }

 private:
  // An unread request body would be parsed as the next request on a
  // keep-alive connection: read leftovers up to kMaxDrainBytes (so a client
  // still sending gets its 413 instead of a reset), close on larger ones.
  static constexpr std::size_t kMaxDrainBytes = 8u << 20;
  bool drainUnread() {
    auto length = contentLength();
    if (!length || *length <= 0) return true;
    auto remaining =
        static_cast<std::size_t>(*length) - std::min(consumed_, static_cast<std::size_t>(*length));
    if (remaining == 0) return true;
    if (remaining > kMaxDrainBytes) return false;
    char sink[16384];
    while (remaining > 0) {
      auto got = readSome(sink, std::min(remaining, sizeof sink));
      if (got == 0) return false;
      remaining -= got;
    }
    return true;
  }

  HTTPServerRequest& request_;
  HTTPServerResponse& response_;
  SseHub& hub_;
  std::size_t consumed_ = 0;
};

class PipelineHandler final : public Poco::Net::HTTPRequestHandler {
 public:
  PipelineHandler(const Pipeline& pipeline, SseHub& hub) : pipeline_(pipeline), hub_(hub) {}
  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    PocoExchange exchange(request, response, hub_);
    pipeline_.handle(exchange);
  }

 private:
  const Pipeline& pipeline_;
  SseHub& hub_;
};

class PipelineHandlerFactory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  PipelineHandlerFactory(const Pipeline& pipeline, SseHub& hub) : pipeline_(pipeline), hub_(hub) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new PipelineHandler(pipeline_, hub_);
  }

 private:
  const Pipeline& pipeline_;
  SseHub& hub_;
};

}  // namespace

HttpServer::HttpServer(const Pipeline& pipeline, SseHub& hub, int max_threads)
    : pipeline_(pipeline), hub_(hub), max_threads_(std::max(2, max_threads)) {}

HttpServer::~HttpServer() {
  if (server_) server_->stopAll(true);
}

int HttpServer::listen(const std::string& host, int port) {
  Poco::Net::SocketAddress address(host, static_cast<Poco::UInt16>(port));
  Poco::Net::ServerSocket socket;
  // SO_REUSEADDR for a quick restart, never SO_REUSEPORT: with it any
  // process of the same user could bind the port too and receive a share of
  // the connections, with their tokens.
  socket.bind(address, true, false);
  socket.listen(256);
  // Accepted sockets inherit TCP_NODELAY from the listener on Linux.
  socket.setNoDelay(true);
  int bound = socket.address().port();

  auto* params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(max_threads_);
  params->setMaxQueued(max_threads_ * 4);
  params->setKeepAlive(true);
  params->setMaxKeepAliveRequests(0);
  params->setKeepAliveTimeout(Poco::Timespan(10, 0));
  params->setTimeout(Poco::Timespan(60, 0));

  pool_ = std::make_unique<Poco::ThreadPool>(2, max_threads_, 60);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new PipelineHandlerFactory(pipeline_, hub_),
                                                    *pool_, socket, params);
  server_->start();
  return bound;
}

void HttpServer::drain(std::chrono::milliseconds timeout) {
  if (!server_) return;
  hub_.closeAll();
  // stopAll(false): stop accepting; connections finish the request in hand
  // and close instead of waiting for another keep-alive request.
  server_->stopAll(false);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (server_->currentConnections() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace abx::kernel
