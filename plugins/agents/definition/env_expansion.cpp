#include "definition/env_expansion.h"

namespace abx::plugins::agents {
namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

EnvLookup environmentLookup(const sdk::ChildEnvironment& environment) {
  return [&environment](std::string_view name) { return environment.get(name); };
}

ExpandedString expandPlaceholders(std::string_view text, const EnvLookup& env) {
  ExpandedString out;
  out.value.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      out.value += text[i++];
      continue;
    }
    if (text.substr(i, 3) == "$${") {  // escape: literal "${"
      out.value += "${";
      i += 3;
      continue;
    }
    if (i + 1 >= text.size() || text[i + 1] != '{') {
      out.value += text[i++];
      continue;
    }
    const std::size_t close = text.find('}', i + 2);
    const std::string_view name =
        close == std::string_view::npos ? std::string_view() : text.substr(i + 2, close - i - 2);
    bool valid = !name.empty() && isNameStart(name[0]);
    for (char c : name) valid = valid && isNameChar(c);
    if (!valid) {
      out.error = "malformed placeholder '" +
                  std::string(text.substr(i, close == std::string_view::npos ? 2 : close - i + 1)) +
                  "' (expected ${NAME}; write $${ for a literal ${)";
      return out;
    }
    auto value = env ? env(name) : std::nullopt;
    if (!value) {
      out.error = "environment variable " + std::string(name) + " is not set";
      return out;
    }
    out.value += *value;
    out.had_placeholder = true;
    i = close + 1;
  }
  return out;
}

}  // namespace abx::plugins::agents
