#include "ws_protocol.h"

#include <signal.h>

#include "abx/sdk/json.h"

namespace abx::plugins::terminal {
namespace {

/** {"type":"event","event":..,"session_id":.. with the object left open for more. */
sdk::JsonWriter eventFrame(std::string_view event, std::string_view session_id) {
  sdk::JsonWriter out;
  out.beginObject().member("type", "event").member("event", event).member("session_id", session_id);
  return out;
}

}  // namespace

std::optional<int> signalByName(std::string_view name) {
  if (name == "SIGINT") return SIGINT;
  if (name == "SIGTERM") return SIGTERM;
  if (name == "SIGKILL") return SIGKILL;
  if (name == "SIGHUP") return SIGHUP;
  if (name == "SIGQUIT") return SIGQUIT;
  return std::nullopt;
}

std::optional<ClientFrame> parseClientFrame(std::string_view text) {
  auto parsed = sdk::Json::parse(text);
  if (!parsed || !parsed->isObject()) return std::nullopt;
  const sdk::Json& json = *parsed;
  if (json.kind("type") != sdk::JsonKind::string) return std::nullopt;
  const std::string type = *json.string("type");
  if (type == "input") {
    if (json.kind("data") != sdk::JsonKind::string) return std::nullopt;
    return InputFrame{*json.string("data")};
  }
  if (type == "resize") {
    if (json.kind("cols") != sdk::JsonKind::integer || json.kind("rows") != sdk::JsonKind::integer)
      return std::nullopt;
    // An integer literal beyond 64 bits has the integer kind but no value.
    const auto cols = json.integer("cols");
    const auto rows = json.integer("rows");
    if (!cols || !rows || *cols < kMinDimension || *cols > kMaxDimension || *rows < kMinDimension ||
        *rows > kMaxDimension)
      return std::nullopt;
    return ResizeFrame{static_cast<int>(*cols), static_cast<int>(*rows)};
  }
  if (type == "signal") {
    if (json.kind("signal") != sdk::JsonKind::string) return std::nullopt;
    auto number = signalByName(*json.string("signal"));
    if (!number) return std::nullopt;
    return SignalFrame{*number};
  }
  return std::nullopt;
}

std::string outputFrame(std::string_view data) {
  sdk::JsonWriter out(data.size() + 32);
  out.beginObject().member("type", "output").member("data", data);
  return out.endObject().take();
}

std::string startedFrame(std::string_view session_id, pid_t pid) {
  sdk::JsonWriter out = eventFrame("started", session_id);
  return out.member("pid", pid).endObject().take();
}

std::string exitedFrame(std::string_view session_id, std::optional<int> exit_code) {
  sdk::JsonWriter out = eventFrame("exited", session_id);
  return out.optionalMember("exit_code", exit_code).endObject().take();
}

}  // namespace abx::plugins::terminal
