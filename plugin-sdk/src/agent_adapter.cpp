// AgentAdapter's key functions and the failure rules every agent CLI shares.
#include "abx/sdk/agent_adapter.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace abx::sdk::agents {
namespace {

std::string lowered(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool containsAny(const std::string& haystack, std::initializer_list<std::string_view> needles) {
  return std::any_of(needles.begin(), needles.end(),
                     [&](std::string_view n) { return haystack.find(n) != std::string::npos; });
}

// The last non-empty line is what a CLI usually prints as its final error.
std::string lastLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  auto pos = text.find_last_of('\n');
  auto line = pos == std::string_view::npos ? text : text.substr(pos + 1);
  constexpr std::size_t kMax = 500;
  return std::string(line.substr(0, kMax));
}

}  // namespace

EventParser::~EventParser() = default;
AgentAdapter::~AgentAdapter() = default;

std::vector<std::string> AgentAdapter::healthArgv() const { return {binary(), "--version"}; }

FailureInfo AgentAdapter::classifyFailure(int exit_code, std::string_view stderr_tail) const {
  return classifyCommonFailure(exit_code, stderr_tail);
}

FailureInfo classifyCommonFailure(int exit_code, std::string_view stderr_tail) {
  const std::string text = lowered(stderr_tail);
  std::string message = lastLine(stderr_tail);
  if (message.empty()) message = "agent exited with status " + std::to_string(exit_code);
  if (exit_code == 126 || exit_code == 127) return {"runtime_not_installed", message};
  if (containsAny(text, {"401", "403", "unauthorized", "invalid api key", "invalid_api_key",
                         "incorrect api key", "authentication", "not logged in", "forbidden"}))
    return {"authentication_error", message};
  if (containsAny(text, {"429", "rate limit", "rate_limit", "quota", "too many requests"}))
    return {"rate_limit_exceeded", message};
  if (containsAny(text, {"context window", "context length", "context_length", "maximum context",
                         "prompt is too long"}))
    return {"context_length_exceeded", message};
  return {"internal_error", message};
}

std::string_view permissionsName(Permissions p) {
  switch (p) {
    case Permissions::read_only:
      return "read_only";
    case Permissions::workspace_write:
      return "workspace_write";
    case Permissions::full_access:
      break;
  }
  return "full_access";
}

}  // namespace abx::sdk::agents
