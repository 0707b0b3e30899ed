#include "ws_server.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/WebSocket.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>
#include <sys/socket.h>

#include <cctype>
#include <chrono>
#include <optional>
#include <vector>

#include "terminal_owner.h"
#include "utf8_chunker.h"
#include "ws_auth.h"
#include "ws_url.h"

namespace abx::plugins::terminal {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;
using Poco::Net::WebSocket;

constexpr int kMaxPayload = 1 << 20;
constexpr long kSocketTimeoutSeconds = 10;

std::string localAddress(HTTPServerRequest& request) {
  try {
    return static_cast<Poco::Net::HTTPServerRequestImpl&>(request)
        .socket()
        .address()
        .host()
        .toString();
  } catch (...) {
    return {};
  }
}

void reply(HTTPServerResponse& response, const sdk::Response& answer) {
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.status));
  for (const auto& [name, value] : answer.headers) response.set(name, value);
  response.setContentType(answer.content_type);
  response.setContentLength(static_cast<std::streamsize>(answer.body.size()));
  response.setKeepAlive(false);
  response.send() << answer.body;
}

class Handler final : public Poco::Net::HTTPRequestHandler {
 public:
  explicit Handler(WsService& service) : service_(service) {}
  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    service_.handle(request, response);
  }

 private:
  WsService& service_;
};

class Factory final : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(WsService& service) : service_(service) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const HTTPServerRequest&) override {
    return new Handler(service_);
  }

 private:
  WsService& service_;
};

/** The close reason for an unknown id: printable, and within a close frame's 123 bytes. */
std::string unknownSession(const std::string& id) {
  std::string shown = sanitizeUtf8(id.substr(0, 64));
  for (auto& c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  return "Unknown session: " + shown;
}

}  // namespace

WsService::WsService(WsServiceContext context)
    : context_(std::move(context)), bridge_(context_.bridge) {}

WsService::~WsService() { stop(); }

sdk::Result<int> WsService::start(const std::string& host, int port) {
  if (running_) return port_.load();
  try {
    // Never SO_REUSEPORT: another process of the same user could bind the
    // port beside us and take a share of the handshakes, tokens and all.
    Poco::Net::ServerSocket socket;
    socket.bind(Poco::Net::SocketAddress(host, static_cast<Poco::UInt16>(port)), true, false);
    socket.listen(64);
    auto params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(static_cast<int>(context_.handshake_threads));
    params->setMaxQueued(64);
    params->setTimeout(Poco::Timespan(kSocketTimeoutSeconds, 0));
    params->setKeepAlive(false);
    params->setThreadIdleTime(Poco::Timespan(10, 0));
    pool_ = std::make_unique<Poco::ThreadPool>(1, static_cast<int>(context_.handshake_threads), 10);
    stopping_ = false;
    bridge_.reopen();
    server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), *pool_, socket, params);
    server_->start();
    port_ = socket.address().port();
    running_ = true;
    return port_.load();
  } catch (const Poco::Exception& e) {
    server_.reset();
    pool_.reset();
    return sdk::Status::error(
        "cannot listen on " + host + ":" + std::to_string(port) + ": " + e.displayText(),
        "OSError");
  }
}

void WsService::stop() noexcept {
  if (!server_) return;
  try {
    stopping_ = true;
    server_->stop();  // no new connections; queued ones are dropped
    std::unique_lock lock(active_mutex_);
    // Handshakes in progress end soon (their sockets time out).
    active_cv_.wait_for(lock, std::chrono::seconds(3), [this] { return active_ == 0; });
    lock.unlock();
    // Connections still reading a request, and a client that neither reads
    // nor answers the close: cut them off.
    server_->stopAll(true);
    lock.lock();
    for (int fd : sockets_) ::shutdown(fd, SHUT_RDWR);
    active_cv_.wait_for(lock, std::chrono::seconds(5), [this] { return active_ == 0; });
    lock.unlock();
    // Every attached terminal closes with 1001 (cut off if it does not answer).
    bridge_.stop();
    server_.reset();
    pool_->joinAll();
    pool_.reset();
  } catch (...) {
  }
  running_ = false;
  stopping_ = false;
}

void WsService::enter() {
  std::lock_guard lock(active_mutex_);
  ++active_;
}

void WsService::leave() {
  std::lock_guard lock(active_mutex_);
  --active_;
  active_cv_.notify_all();
}

void WsService::track(int fd) {
  std::lock_guard lock(active_mutex_);
  sockets_.insert(fd);
}

void WsService::untrack(int fd) {
  std::lock_guard lock(active_mutex_);
  sockets_.erase(fd);
}

void WsService::handle(HTTPServerRequest& request, HTTPServerResponse& response) {
  enter();
  struct Leave {
    WsService* s;
    ~Leave() { s->leave(); }
  } leave{this};
  try {
    if (stopping_)
      return reply(response,
                   sdk::Response::error(503, "The PTY service is stopping", "RuntimeError"));
    Poco::URI uri(request.getURI());
    std::string path = uri.getPath();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path != "/pty")
      return reply(response, sdk::Response::error(404, "Not found: " + path, "ValueError"));
    if (request.getMethod() != Poco::Net::HTTPRequest::HTTP_GET)
      return reply(response, sdk::Response::error(405, "Method not allowed: " + request.getMethod(),
                                                  "ValueError"));

    std::optional<std::string> session_id, ticket;
    for (const auto& [name, value] : uri.getQueryParameters()) {
      std::optional<std::string>* slot = name == "session_id" ? &session_id
                                         : name == "ticket"   ? &ticket
                                                              : nullptr;
      if (!slot) continue;
      if (*slot)
        return reply(response, sdk::Response::error(400, "Duplicate query parameter '" + name + "'",
                                                    "ValueError", "duplicate_parameter"));
      *slot = value;
    }
    if (session_id && session_id->empty()) session_id.reset();

    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& [name, value] : request) {
      std::string lower = name;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      headers.emplace_back(std::move(lower), value);
    }
    Handshake handshake{std::move(headers), session_id, ticket, localAddress(request)};
    const HandshakeVerdict verdict =
        authorizeHandshake(*context_.host, *context_.tickets, handshake);
    if (!verdict.allowed) {
      auto refusal = sdk::Response::json(verdict.body, verdict.status);
      refusal.headers = verdict.headers;
      return reply(response, refusal);
    }

    std::unique_ptr<WebSocket> ws;
    try {
      ws = std::make_unique<WebSocket>(request, response);
    } catch (const Poco::Net::WebSocketException& e) {
      std::optional<std::string_view> host_header;
      if (request.has("Host")) host_header = request.get("Host");
      const std::string message = e.code() == WebSocket::WS_ERR_NO_HANDSHAKE
                                      ? "connect with a WebSocket to ws://" +
                                            urlHost(host_header, context_.host->info().host) + ":" +
                                            std::to_string(port_.load()) + "/pty?session_id=…"
                                      : e.message();
      if (!response.sent()) reply(response, sdk::Response::error(400, message, "ValueError"));
      return;
    }
    ws->setMaxPayloadSize(kMaxPayload);
    ws->setSendTimeout(Poco::Timespan(kSocketTimeoutSeconds, 0));
    ws->setReceiveTimeout(Poco::Timespan(kSocketTimeoutSeconds, 0));
    const int fd = ws->impl()->sockfd();
    track(fd);
    struct Untrack {
      WsService* s;
      int fd;
      void now() {
        if (fd >= 0) s->untrack(fd);
        fd = -1;
      }
      ~Untrack() { now(); }
    } untrack{this, fd};
    if (!session_id) {
      closeWebSocket(*ws, WebSocket::WS_POLICY_VIOLATION, "Missing session_id parameter");
    } else if (auto session = context_.sessions->find(*session_id);
               !session || !mayActOn(verdict.caller, verdict.admin, session->owner())) {
      // Another identity's session is unknown to the caller, with the same close.
      closeWebSocket(*ws, WebSocket::WS_POLICY_VIOLATION, unknownSession(*session_id));
    } else {
      if (context_.log)
        context_.log->debug("pty " + session->id() + ": client attached (" + verdict.caller + ")");
      // From here the bridge thread owns the socket (and may close it).
      untrack.now();
      if (!bridge_.adopt(ws, session))
        closeWebSocket(
            *ws, stopping_ ? WebSocket::WS_ENDPOINT_GOING_AWAY : WebSocket::WS_UNEXPECTED_CONDITION,
            stopping_ ? "PTY service stopping" : "PTY bridge unavailable");
    }
  } catch (const std::exception& e) {
    if (context_.log) context_.log->debug(std::string("pty websocket: ") + e.what());
    try {
      if (!response.sent()) reply(response, sdk::Response::error(400, e.what(), "ValueError"));
    } catch (...) {
    }
  }
}

}  // namespace abx::plugins::terminal
