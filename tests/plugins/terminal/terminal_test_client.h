// The terminal integration tests' client side: a server with the terminal
// plugin (token, policy, settings, PTY port), session creation over REST,
// and a WebSocket client on POCO the way any third-party client connects
// (handshake, JSON frames, output collected until a needle, close codes).
#pragma once

#include <Poco/Buffer.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/WebSocket.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/server_process.h"

namespace abx::testing::pty_support {

using Headers = std::vector<std::pair<std::string, std::string>>;
using Poco::Net::WebSocket;

inline const std::string kToken = "pty-token-7f3a";
inline const Headers kAuth = {{"X-Access-Token", kToken}};

inline std::string manifest(const std::string& settings = {}) {
  std::string m = "plugins:\n  - name: terminal\n    file: abx_terminal.so\n    id: abx.terminal\n";
  if (!settings.empty()) m += "    settings:\n" + settings;
  return m;
}

struct Config {
  bool token = true;
  std::string policy;
  std::string settings;
  int pty_port = 0;
};

inline ServerOptions options(const Config& s = {}) {
  ServerOptions o;
  o.files = {{"plugins.yaml", manifest(s.settings)}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--pty-port", std::to_string(s.pty_port)};
  if (!s.policy.empty()) {
    o.files["policy.yaml"] = s.policy;
    o.args.push_back("--policy");
    o.args.push_back("{dir}/policy.yaml");
  }
  if (s.token) o.env["ABX_SERVER_TOKEN"] = kToken;
  return o;
}

inline Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

inline int freePort() {
  Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
  return probe.address().port();
}

inline bool listening(int port) {
  try {
    Poco::Net::StreamSocket s(
        Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)));
    return true;
  } catch (const Poco::Exception&) {
    return false;
  }
}

template <class F>
inline bool eventually(F done, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return done();
}

/** True when a child of @p parent runs the program @p name (from /proc). */
inline bool hasChildNamed(int parent, const std::string& name) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    // pid (comm) state ppid ...
    const auto open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    std::string state;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && text.substr(open + 1, close - open - 1) == name) return true;
  }
  return false;
}

/** The names of @p pid's threads (from /proc: what ps -L shows). */
inline std::vector<std::string> threadNames(int pid) {
  std::vector<std::string> names;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& entry : std::filesystem::directory_iterator(tasks)) {
    std::ifstream comm(entry.path() / "comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  return names;
}

/** A created session: its id, pid and ws_url split into port and target. */
struct Created {
  std::string id;
  int pid = 0;
  std::string url;
  int port = 0;
  std::string target;  // "/pty?session_id=...&ticket=..."
  std::string ticket;
};

inline Created create(const ServerProcess& server, const std::string& body = "{}",
                      const Headers& headers = kAuth) {
  auto r = http(server.port(), "POST", "/pty/sessions", body, headers);
  if (r.status != 200) throw std::runtime_error("create: " + std::to_string(r.status) + r.body);
  auto o = object(r.body);
  Created c;
  c.id = o->getValue<std::string>("session_id");
  c.pid = o->getValue<int>("pid");
  c.url = o->getValue<std::string>("ws_url");
  const std::string prefix = "ws://127.0.0.1:";
  if (!c.url.starts_with(prefix)) throw std::runtime_error("ws_url: " + c.url);
  auto slash = c.url.find('/', prefix.size());
  c.port = std::stoi(c.url.substr(prefix.size(), slash - prefix.size()));
  c.target = c.url.substr(slash);
  if (auto t = c.url.find("&ticket="); t != std::string::npos) c.ticket = c.url.substr(t + 8);
  return c;
}

/** A WebSocket client on POCO, the way any third-party client would connect. */
class WsClient {
 public:
  /** Connects; on a refused handshake returns null and sets @p status. */
  static std::unique_ptr<WsClient> connect(int port, const std::string& target,
                                           const Headers& headers = {}, int* status = nullptr) {
    auto c = std::unique_ptr<WsClient>(new WsClient(port));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, target,
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    for (const auto& [k, v] : headers) request.add(k, v);
    Poco::Net::HTTPResponse response;
    try {
      c->ws_ = std::make_unique<WebSocket>(c->session_, request, response);
    } catch (const Poco::Net::WebSocketException&) {
      if (status) *status = static_cast<int>(response.getStatus());
      return nullptr;
    }
    if (status) *status = static_cast<int>(response.getStatus());
    c->ws_->setReceiveTimeout(Poco::Timespan(10, 0));
    return c;
  }

  void send(const std::string& text) {
    ws_->sendFrame(text.data(), static_cast<int>(text.size()), WebSocket::FRAME_TEXT);
  }
  /** One raw frame: @p flags is its first byte (FIN and opcode). */
  void sendFrame(const std::string& payload, int flags) {
    ws_->sendFrame(payload.data(), static_cast<int>(payload.size()), flags);
  }
  void input(const std::string& data) {
    Poco::JSON::Object o;
    o.set("type", "input");
    o.set("data", data);
    std::ostringstream out;
    o.stringify(out);
    send(out.str());
  }

  /** The next text frame as JSON; null after a close frame or on timeout. */
  Poco::JSON::Object::Ptr next(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline && !closed_) {
      Poco::Buffer<char> buffer(0);
      int flags = 0;
      int n;
      try {
        n = ws_->receiveFrame(buffer, flags);
      } catch (const Poco::TimeoutException&) {
        return nullptr;
      }
      const int op = flags & WebSocket::FRAME_OP_BITMASK;
      std::string payload(buffer.begin(), static_cast<std::size_t>(n));
      if (n == 0 && flags == 0) {
        closed_ = true;
        break;
      }
      if (op == WebSocket::FRAME_OP_CLOSE) {
        closed_ = true;
        if (payload.size() >= 2) {
          close_code = (static_cast<unsigned char>(payload[0]) << 8) |
                       static_cast<unsigned char>(payload[1]);
          close_reason = payload.substr(2);
        }
        try {
          ws_->shutdown();
        } catch (const Poco::Exception&) {
        }
        break;
      }
      if (op == WebSocket::FRAME_OP_PONG) pongs.push_back(payload);
      if (op != WebSocket::FRAME_OP_TEXT) continue;
      texts.push_back(payload);
      return object(payload);  // throws if a frame is not valid JSON
    }
    return nullptr;
  }

  /** Collects output frames until their text contains @p needle. */
  bool waitOutput(const std::string& needle,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output.find(needle, scanned_) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      auto frame = next(left);
      if (!frame) return false;
      absorb(frame);
    }
    scanned_ = output.find(needle, scanned_) + needle.size();
    return true;
  }

  /** The next event frame (output frames on the way are collected). */
  Poco::JSON::Object::Ptr nextEvent(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto frame = next(std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now()));
      if (!frame) return nullptr;
      if (frame->getValue<std::string>("type") == "event") return frame;
      absorb(frame);
    }
    return nullptr;
  }

  /** Reads until the server's close frame. @return its code (0: none). */
  int waitClose(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_ && std::chrono::steady_clock::now() < deadline) {
      auto frame = next(std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now()));
      if (frame) absorb(frame);
    }
    return close_code;
  }

  std::string output;
  std::vector<std::string> texts;
  std::vector<std::string> pongs;
  int close_code = 0;
  std::string close_reason;

 private:
  explicit WsClient(int port) : session_("127.0.0.1", static_cast<Poco::UInt16>(port)) {
    session_.setTimeout(Poco::Timespan(10, 0));
  }
  void absorb(const Poco::JSON::Object::Ptr& frame) {
    if (frame->getValue<std::string>("type") == "output")
      output += frame->getValue<std::string>("data");
  }

  Poco::Net::HTTPClientSession session_;
  std::unique_ptr<WebSocket> ws_;
  bool closed_ = false;
  std::size_t scanned_ = 0;
};

/** An attached client that already got its started event. */
inline std::unique_ptr<WsClient> attach(const Created& c, const Headers& headers = kAuth) {
  int status = 0;
  auto ws = WsClient::connect(c.port, "/pty?session_id=" + c.id, headers, &status);
  if (!ws) throw std::runtime_error("handshake refused: " + std::to_string(status));
  auto started = ws->next();
  if (!started || started->getValue<std::string>("event") != "started")
    throw std::runtime_error("no started event");
  return ws;
}

/** Upgrade headers for a refused handshake read with the plain HTTP client. */
inline Headers upgrade(Headers extra = {}) {
  Headers h = {{"Connection", "Upgrade"},
               {"Upgrade", "websocket"},
               {"Sec-WebSocket-Version", "13"},
               {"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}};
  h.insert(h.end(), extra.begin(), extra.end());
  return h;
}

inline std::string bashBody(const ServerProcess& server, const std::string& extra = {}) {
  return R"({"shell":"/bin/bash","env":{"HOME":")" + server.dir() + R"(","PS1":"$ "})" + extra +
         "}";
}

}  // namespace abx::testing::pty_support
