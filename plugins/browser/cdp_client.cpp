#include "cdp_client.h"

#include <Poco/Buffer.h>
#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/WebSocket.h>

#include <sstream>

namespace abx::plugins::browser {
namespace {

using Poco::Net::WebSocket;

/** Screenshots and PDFs of large pages arrive as one message of many MB. */
constexpr int kMaxMessageBytes = 512 << 20;

Poco::Timespan until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
  if (left.count() < 1000) left = std::chrono::microseconds(1000);
  return Poco::Timespan(left.count());
}

}  // namespace

CdpClient::~CdpClient() {
  if (!socket_) return;
  try {
    socket_->shutdown();
  } catch (...) {
  }
}

sdk::Result<std::unique_ptr<CdpClient>> CdpClient::connect(int port, const std::string& path,
                                                           std::chrono::milliseconds timeout) {
  try {
    Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
    session.setTimeout(Poco::Timespan(timeout.count() * 1000));
    Poco::Net::HTTPRequest request(Poco::Net::HTTPRequest::HTTP_GET, path,
                                   Poco::Net::HTTPMessage::HTTP_1_1);
    Poco::Net::HTTPResponse response;
    std::unique_ptr<CdpClient> client(new CdpClient);
    client->socket_ = std::make_unique<WebSocket>(session, request, response);
    client->socket_->setMaxPayloadSize(kMaxMessageBytes);
    client->socket_->setNoDelay(true);
    return client;
  } catch (const Poco::Exception& e) {
    return sdk::Status::error("Cannot connect to Chromium's DevTools: " + e.displayText(),
                              "ConnectionError");
  }
}

sdk::Result<Poco::JSON::Object::Ptr> CdpClient::readMessage(Clock::time_point deadline) {
  Poco::Buffer<char> buffer(0);
  int flags = 0;
  try {
    // A message may come in several frames; the last has FIN set.
    while (true) {
      socket_->setReceiveTimeout(until(deadline));
      const std::size_t before = buffer.size();
      const int n = socket_->receiveFrame(buffer, flags);
      const int opcode = flags & WebSocket::FRAME_OP_BITMASK;
      if (n == 0 && flags == 0) {
        broken_ = true;
        return sdk::Status::error("Chromium closed the DevTools connection", "ConnectionError");
      }
      if (opcode == WebSocket::FRAME_OP_CLOSE) {
        broken_ = true;
        return sdk::Status::error("Chromium closed the DevTools connection", "ConnectionError");
      }
      if (opcode == WebSocket::FRAME_OP_PING) {
        socket_->sendFrame(buffer.begin() + before, n,
                           static_cast<int>(WebSocket::FRAME_FLAG_FIN) |
                               static_cast<int>(WebSocket::FRAME_OP_PONG));
        buffer.resize(before);
        continue;
      }
      if (opcode == WebSocket::FRAME_OP_PONG) {
        buffer.resize(before);
        continue;
      }
      if (flags & WebSocket::FRAME_FLAG_FIN) break;
    }
  } catch (const Poco::TimeoutException&) {
    return sdk::Status::error("Timed out waiting for Chromium", "TimeoutError");
  } catch (const Poco::Exception& e) {
    broken_ = true;
    return sdk::Status::error("DevTools connection failed: " + e.displayText(), "ConnectionError");
  }
  try {
    Poco::JSON::Parser parser;
    auto value = parser.parse(std::string(buffer.begin(), buffer.size()));
    auto message = value.extract<Poco::JSON::Object::Ptr>();
    if (!message->has("id")) {
      if (handler_ && message->has("method")) {
        auto params = message->getObject("params");
        if (!params) params = new Poco::JSON::Object;
        handler_(message->getValue<std::string>("method"), params);
      }
      return Poco::JSON::Object::Ptr();
    }
    return message;
  } catch (const Poco::Exception& e) {
    return sdk::Status::error("Unreadable DevTools message: " + e.displayText(), "BrowserError");
  }
}

sdk::Result<Poco::JSON::Object::Ptr> CdpClient::call(const std::string& method,
                                                     const Poco::JSON::Object::Ptr& params,
                                                     Clock::time_point deadline) {
  if (broken_) return sdk::Status::error("DevTools connection is closed", "ConnectionError");
  const long id = next_id_++;
  Poco::JSON::Object command;
  command.set("id", id);
  command.set("method", method);
  command.set("params", params ? params : Poco::JSON::Object::Ptr(new Poco::JSON::Object));
  std::ostringstream text;
  command.stringify(text);
  const std::string frame = text.str();
  try {
    socket_->sendFrame(frame.data(), static_cast<int>(frame.size()), WebSocket::FRAME_TEXT);
  } catch (const Poco::Exception& e) {
    broken_ = true;
    return sdk::Status::error("DevTools connection failed: " + e.displayText(), "ConnectionError");
  }
  while (true) {
    if (Clock::now() >= deadline) return sdk::Status::error(method + " timed out", "TimeoutError");
    auto message = readMessage(deadline);
    if (!message) return message.status();
    if (message->isNull()) continue;
    // A reply to an earlier call that timed out: nobody waits for it.
    if ((*message)->getValue<long>("id") != id) continue;
    if (auto error = (*message)->getObject("error")) {
      std::string text = error->optValue<std::string>("message", "DevTools error");
      if (error->has("data")) text += ": " + error->get("data").toString();
      return sdk::Status::error(method + ": " + text, "BrowserError");
    }
    auto result = (*message)->getObject("result");
    return result ? result : Poco::JSON::Object::Ptr(new Poco::JSON::Object);
  }
}

void CdpClient::drain() {
  try {
    while (!broken_ && socket_->poll(Poco::Timespan(0), Poco::Net::Socket::SELECT_READ |
                                                            Poco::Net::Socket::SELECT_ERROR)) {
      if (!readMessage(Clock::now() + std::chrono::milliseconds(1000))) break;
    }
  } catch (const Poco::Exception&) {
    broken_ = true;
  }
}

sdk::Status CdpClient::pumpUntil(const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    if (broken_) return sdk::Status::error("DevTools connection is closed", "ConnectionError");
    if (Clock::now() >= deadline) return sdk::Status::error("Timed out", "TimeoutError");
    auto message = readMessage(deadline);
    if (!message) return message.status();
  }
  return sdk::Status::ok();
}

}  // namespace abx::plugins::browser
