#include "signal_rules.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "process_vocabulary.h"
namespace abx::plugins::process {

std::vector<std::int64_t> allowedSignals(const sdk::Params& params) {
  if (auto allowed = params.integers(kAllowedSignals)) return *allowed;
  return {std::begin(kDefaultSignals), std::end(kDefaultSignals)};
}

std::variant<int, sdk::HttpError> requestedSignal(const sdk::Json& body,
                                                  const sdk::Params& params) {
  const auto kind = body.kind("signal");
  if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null)
    return sdk::HttpError::badRequest("Missing required field 'signal'");
  if (kind != sdk::JsonKind::integer)
    return sdk::HttpError::badRequest("Field 'signal' must be an integer");
  auto value = body.integer("signal");
  if (!value) return sdk::HttpError::badRequest(value.status().message());
  const auto allowed = allowedSignals(params);
  if (std::find(allowed.begin(), allowed.end(), *value) == allowed.end() || *value < 1 ||
      *value > 64) {
    std::string list;
    for (auto s : allowed) list += (list.empty() ? "" : ", ") + std::to_string(s);
    return sdk::HttpError::badRequest(
        "Signal " + std::to_string(*value) +
        " is not allowed; allowed: " + (list.empty() ? "(none)" : list));
  }
  return static_cast<int>(*value);
}

std::optional<std::int64_t> parsePid(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t pid = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return pid;
}

std::optional<sdk::HttpError> protectedPid(std::int64_t pid, pid_t server_pid) {
  if (pid == 1 || pid == static_cast<std::int64_t>(server_pid))
    return sdk::HttpError{403,
                          "Sending signals to pid " + std::to_string(pid) + " is not allowed",
                          "PermissionError",
                          {}};
  return std::nullopt;
}

}  // namespace abx::plugins::process
