#include "cdp_client.h"

namespace abx::plugins::browser {

std::string cdpText(const sdk::Json& o, std::string_view key, std::string_view fallback) {
  const sdk::Json v = o.get(key);
  return std::string(v.isString() ? v.stringView() : fallback);
}

double cdpNumber(const sdk::Json& o, std::string_view key, double fallback) {
  auto v = o.get(key).asNumber(fallback);
  return v ? *v : fallback;
}

long CdpClient::send(const std::string& method, std::string_view params,
                     const std::string& session_id) {
  if (broken_) return -1;
  const long id = next_id_++;
  sdk::JsonWriter command(64 + method.size() + params.size());
  command.beginObject().member("id", id).member("method", method);
  command.key("params").raw(params.empty() ? "{}" : params);
  if (!session_id.empty()) command.member("sessionId", session_id);
  if (!transport_.send(command.endObject().take())) {
    broken_ = true;
    return -1;
  }
  return id;
}

void CdpClient::post(const std::string& method, std::string_view params,
                     const std::string& session_id) {
  send(method, params, session_id);
}

sdk::Result<std::optional<sdk::Json>> CdpClient::readMessage(Clock::time_point deadline) {
  auto text = transport_.receive(deadline);
  if (!text) {
    if (text.status().type() == "ConnectionError") broken_ = true;
    return text.status();
  }
  auto message = sdk::Json::parse(*text);
  if (!message || !message->isObject())
    return sdk::Status::error(
        "Unreadable DevTools message: " +
            (message ? std::string("not a JSON object") : message.status().message()),
        "BrowserError");
  if (message->has("id")) return std::optional<sdk::Json>(std::move(message).value());
  if (handler_ && message->get("method").isString()) {
    sdk::Json params = message->get("params");
    handler_(cdpText(*message, "method"), params.isObject() ? params : sdk::Json(),
             cdpText(*message, "sessionId"));
  }
  return std::optional<sdk::Json>();
}

sdk::Result<sdk::Json> CdpClient::call(const std::string& method, std::string_view params,
                                       Clock::time_point deadline, const std::string& session_id) {
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
    if (!*message) continue;
    const sdk::Json& reply = **message;
    // A reply to a posted command or to an earlier call that timed out: nobody waits for it.
    auto reply_id = reply.get("id").asInteger();
    if (!reply_id || *reply_id != id) continue;
    if (auto error = reply.get("error"); error.isObject()) {
      std::string text = cdpText(error, "message", "DevTools error");
      if (auto data = error.get("data"); !data.isAbsent())
        text += ": " + (data.isString() ? std::string(data.stringView()) : data.dump());
      return sdk::Status::error(method + ": " + text, "BrowserError");
    }
    sdk::Json result = reply.get("result");
    return result.isObject() ? result : sdk::Json();
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
