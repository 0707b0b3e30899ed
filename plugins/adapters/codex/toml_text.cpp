// TOML quoting for codex -c values.
#include "toml_text.h"

#include "abx/sdk/json.h"

namespace abx::plugins::adapters::toml {

// A JSON string literal is a TOML basic string (same escapes, UTF-8), except
// that TOML also forbids a raw DEL.
std::string string(std::string_view text) {
  const std::string quoted = sdk::jsonQuote(text);
  std::string out;
  out.reserve(quoted.size());
  for (char ch : quoted) {
    if (ch == '\x7f')
      out += "\\u007F";
    else
      out += ch;
  }
  return out;
}

std::string stringArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) {
    if (out.size() > 1) out += ", ";
    out += string(item);
  }
  return out + "]";
}

std::string inlineTable(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out = "{";
  for (const auto& [key, value] : members) {
    if (out.size() > 1) out += ", ";
    out += string(key) + " = " + value;
  }
  return out + "}";
}

}  // namespace abx::plugins::adapters::toml
