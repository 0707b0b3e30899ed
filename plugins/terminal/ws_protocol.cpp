#include "ws_protocol.h"

#include <signal.h>

#include "abx/sdk/json.h"

namespace abx::plugins::terminal {

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
    const auto cols = *json.integer("cols");
    const auto rows = *json.integer("rows");
    if (cols < kMinDimension || cols > kMaxDimension || rows < kMinDimension ||
        rows > kMaxDimension)
      return std::nullopt;
    return ResizeFrame{static_cast<int>(cols), static_cast<int>(rows)};
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
  std::string out = R"({"type":"output","data":)";
  out += sdk::jsonQuote(data);
  out += '}';
  return out;
}

std::string startedFrame(std::string_view session_id, pid_t pid) {
  return R"({"type":"event","event":"started","session_id":)" + sdk::jsonQuote(session_id) +
         ",\"pid\":" + std::to_string(pid) + "}";
}

std::string exitedFrame(std::string_view session_id, std::optional<int> exit_code) {
  std::string out =
      R"({"type":"event","event":"exited","session_id":)" + sdk::jsonQuote(session_id);
  if (exit_code) out += ",\"exit_code\":" + std::to_string(*exit_code);
  out += '}';
  return out;
}

}  // namespace abx::plugins::terminal
