#include "cdp_client.h"

#include <Poco/Exception.h>
#include <Poco/JSON/Parser.h>

#include <sstream>

namespace abx::plugins::browser {

long CdpClient::send(const std::string& method, const Poco::JSON::Object::Ptr& params,
                     const std::string& session_id) {
  if (broken_) return -1;
  const long id = next_id_++;
  Poco::JSON::Object command;
  command.set("id", id);
  command.set("method", method);
  command.set("params", params ? params : Poco::JSON::Object::Ptr(new Poco::JSON::Object));
  if (!session_id.empty()) command.set("sessionId", session_id);
  std::ostringstream text;
  command.stringify(text);
  if (!transport_.send(text.str())) {
    broken_ = true;
    return -1;
  }
  return id;
}

void CdpClient::post(const std::string& method, const Poco::JSON::Object::Ptr& params,
                     const std::string& session_id) {
  send(method, params, session_id);
}

sdk::Result<Poco::JSON::Object::Ptr> CdpClient::readMessage(Clock::time_point deadline) {
  auto text = transport_.receive(deadline);
  if (!text) {
    if (text.status().type() == "ConnectionError") broken_ = true;
    return text.status();
  }
  try {
    Poco::JSON::Parser parser;
    auto message = parser.parse(*text).extract<Poco::JSON::Object::Ptr>();
    if (!message->has("id")) {
      if (handler_ && message->has("method")) {
        auto params = message->getObject("params");
        if (!params) params = new Poco::JSON::Object;
        handler_(message->getValue<std::string>("method"), params,
                 message->optValue<std::string>("sessionId", ""));
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
                                                     Clock::time_point deadline,
                                                     const std::string& session_id) {
  if (broken_) return sdk::Status::error("DevTools connection is closed", "ConnectionError");
  const long id = send(method, params, session_id);
  if (id < 0) return sdk::Status::error("DevTools connection failed", "ConnectionError");
  while (true) {
    if (Clock::now() >= deadline) return sdk::Status::error(method + " timed out", "TimeoutError");
    auto message = readMessage(deadline);
    if (!message) {
      if (message.status().type() == "TimeoutError")
        return sdk::Status::error(method + " timed out", "TimeoutError");
      return message.status();
    }
    if (message->isNull()) continue;
    // A reply to a posted command or to an earlier call that timed out: nobody waits for it.
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
  // Bounded: a page that keeps making requests must not keep the caller here.
  const auto until = Clock::now() + std::chrono::milliseconds(250);
  while (!broken_ && Clock::now() < until) {
    auto message = readMessage(Clock::now());
    if (!message && message.status().type() == "TimeoutError") return;
    if (!message && broken_) return;
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
