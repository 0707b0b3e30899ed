// PageServer: the small HTTP server the browser tests serve their pages from,
// on 127.0.0.1 (an ephemeral port). Each path answers a page (or a redirect)
// set by the test; every request that arrives is recorded ("METHOD host
// path"), so an attack test can prove a refused request never reached it.
#pragma once

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace abx::testing {

/** What one path answers: a page (status, HTML) or a redirect (location). */
struct PageReply {
  int status = 200;
  std::string html;
  std::string location; /**< non-empty: a 302 to this URL */
};

class PageServer {
 public:
  /** "{port}" in a page's HTML or location becomes the server's port. */
  explicit PageServer(std::map<std::string, PageReply> pages = {})
      : state_(std::make_shared<State>()),
        socket_(Poco::Net::SocketAddress("127.0.0.1", 0)),
        server_(new Factory(state_), socket_, new Poco::Net::HTTPServerParams) {
    state_->port = std::to_string(socket_.address().port());
    state_->pages = std::move(pages);
    server_.start();
  }
  ~PageServer() { server_.stop(); }

  int port() const { return socket_.address().port(); }
  /** http://127.0.0.1:<port><path> */
  std::string url(const std::string& path = "/index.html") const {
    return "http://127.0.0.1:" + state_->port + path;
  }
  /** Every request so far: "GET 127.0.0.1:1234 /index.html". */
  std::vector<std::string> requests() const {
    std::lock_guard lock(state_->mutex);
    return state_->log;
  }
  /** True when a recorded request's path holds @p fragment. */
  bool reached(const std::string& fragment) const {
    for (const auto& line : requests())
      if (line.substr(line.rfind(' ') + 1).find(fragment) != std::string::npos) return true;
    return false;
  }

 private:
  struct State {
    std::mutex mutex;
    std::string port;
    std::map<std::string, PageReply> pages;
    std::vector<std::string> log;
  };

  static std::string withPort(std::string text, const std::string& port) {
    for (auto at = text.find("{port}"); at != std::string::npos; at = text.find("{port}", at))
      text.replace(at, 6, port);
    return text;
  }

  class Handler : public Poco::Net::HTTPRequestHandler {
   public:
    explicit Handler(std::shared_ptr<State> state) : state_(std::move(state)) {}
    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
      PageReply reply{404, "<title>Nope</title>", {}};
      {
        std::lock_guard lock(state_->mutex);
        state_->log.push_back(request.getMethod() + " " + request.getHost() + " " +
                              request.getURI());
        const auto path = request.getURI().substr(0, request.getURI().find('?'));
        if (auto it = state_->pages.find(path); it != state_->pages.end()) reply = it->second;
      }
      std::string drained;
      request.stream() >> drained;  // a form post's body
      if (!reply.location.empty()) {
        response.redirect(withPort(reply.location, state_->port));
        return;
      }
      response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
      response.setContentType("text/html; charset=utf-8");
      response.send() << withPort(reply.html, state_->port);
    }

   private:
    std::shared_ptr<State> state_;
  };

  class Factory : public Poco::Net::HTTPRequestHandlerFactory {
   public:
    explicit Factory(std::shared_ptr<State> state) : state_(std::move(state)) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(
        const Poco::Net::HTTPServerRequest&) override {
      return new Handler(state_);
    }

   private:
    std::shared_ptr<State> state_;
  };

  std::shared_ptr<State> state_;
  Poco::Net::ServerSocket socket_;
  Poco::Net::HTTPServer server_;
};

}  // namespace abx::testing
