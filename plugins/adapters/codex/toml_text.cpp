// TOML quoting for codex -c values.
#include "toml_text.h"

#include <cstdio>

namespace abx::plugins::adapters::toml {

std::string string(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04X", c);
          out += escaped;
        } else {
          out += ch;  // UTF-8 bytes pass as they are: TOML strings are UTF-8
        }
    }
  }
  out += '"';
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
