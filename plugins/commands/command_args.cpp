// Coercion follows the spec's table (string / integer / float / boolean, with
// the _parse_boolean words) and stays strict where Python would silently
// truncate: 4.5 is not an integer, 2 is not a boolean.
#include "command_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace abx::plugins::commands {
namespace {

using sdk::ArgType;
using sdk::CommandValue;
using sdk::JsonScalar;
using sdk::Result;
using sdk::Status;

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string_view article(ArgType type) {
  switch (type) {
    case ArgType::string:
      return "a string";
    case ArgType::integer:
      return "an integer";
    case ArgType::floating:
      return "a float";
    case ArgType::boolean:
      return "a boolean";
  }
  return "a value";
}

// Renders the rejected value the way the caller sent it.
std::string describe(const JsonScalar& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return sdk::jsonQuote(v);
        } else {
          return valueJson(CommandValue(v));
        }
      },
      value);
}

Status mismatch(const std::string& name, ArgType type, std::string_view got) {
  return Status::error("Parameter '" + name + "' must be " + std::string(article(type)) + ", got " +
                           std::string(got),
                       "ValueError");
}

// "42", "-7", "+3" (surrounding whitespace allowed, as Python's int()).
std::optional<std::int64_t> parseInteger(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  std::int64_t out = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return out;
}

// "2.5", "1e3", "-4"; never nan or inf, which JSON cannot carry back.
std::optional<double> parseFloat(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  double out = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(out))
    return std::nullopt;
  return out;
}

std::optional<bool> parseBoolean(std::string_view text) {
  std::string lower(trim(text));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "true" || lower == "yes" || lower == "1") return true;
  if (lower == "false" || lower == "no" || lower == "0") return false;
  return std::nullopt;
}

// An integral double inside int64 range (4.0 from a JS client) is an integer.
std::optional<std::int64_t> integralDouble(double d) {
  if (!std::isfinite(d) || std::trunc(d) != d) return std::nullopt;
  if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

}  // namespace

Result<CommandValue> coerceArg(const std::string& name, ArgType type, const JsonScalar& value) {
  const auto* s = std::get_if<std::string>(&value);
  const auto* i = std::get_if<std::int64_t>(&value);
  const auto* d = std::get_if<double>(&value);
  const auto* b = std::get_if<bool>(&value);
  switch (type) {
    case ArgType::string:
      if (s) return CommandValue(*s);
      if (i) return CommandValue(std::to_string(*i));
      if (d) return CommandValue(valueText(CommandValue(*d)));
      if (b) return CommandValue(std::string(*b ? "true" : "false"));
      break;
    case ArgType::integer:
      if (i) return CommandValue(*i);
      if (d) {
        if (auto v = integralDouble(*d)) return CommandValue(*v);
      }
      if (s) {
        if (auto v = parseInteger(*s)) return CommandValue(*v);
      }
      break;
    case ArgType::floating:
      if (d && std::isfinite(*d)) return CommandValue(*d);
      if (i) return CommandValue(static_cast<double>(*i));
      if (s) {
        if (auto v = parseFloat(*s)) return CommandValue(*v);
      }
      break;
    case ArgType::boolean:
      if (b) return CommandValue(*b);
      if (i && (*i == 0 || *i == 1)) return CommandValue(*i == 1);
      if (s) {
        if (auto v = parseBoolean(*s)) return CommandValue(*v);
      }
      break;
  }
  return mismatch(name, type, describe(value));
}

sdk::Result<sdk::CommandArgs> bindArgs(const sdk::CommandSpec& command, const sdk::Json& kwargs) {
  if (!kwargs.isObject())
    return Status::error("Request body must be a JSON object of arguments", "ValueError");

  // Unknown names first: a typo should be reported as a typo, not as the
  // "missing required parameter" it also causes.
  std::vector<std::string> unknown;
  for (const auto& key : kwargs.keys()) {
    bool known = std::any_of(command.args.begin(), command.args.end(),
                             [&](const sdk::CommandArg& a) { return a.name == key; });
    if (!known) unknown.push_back(key);
  }
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    std::string names;
    for (const auto& u : unknown) names += (names.empty() ? "'" : ", '") + u + "'";
    std::string accepted;
    for (const auto& a : command.args) accepted += (accepted.empty() ? "" : ", ") + a.name;
    return Status::error(
        std::string(unknown.size() == 1 ? "Unknown parameter " : "Unknown parameters ") + names +
            " for command '" + command.name +
            "'; accepted: " + (accepted.empty() ? "(none)" : accepted),
        "ValueError");
  }

  sdk::CommandArgs out;
  for (const auto& arg : command.args) {
    sdk::JsonKind kind = kwargs.kind(arg.name);
    if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) {
      if (arg.required)
        return Status::error(
            "Missing required parameter '" + arg.name + "' for command '" + command.name + "'",
            "ValueError");
      if (arg.default_value) out.emplace(arg.name, *arg.default_value);
      continue;
    }
    if (kind == sdk::JsonKind::array || kind == sdk::JsonKind::object)
      return mismatch(arg.name, arg.type, kind == sdk::JsonKind::array ? "an array" : "an object");
    auto scalar = kwargs.scalar(arg.name);
    if (!scalar) return scalar.status();
    auto value = coerceArg(arg.name, arg.type, *scalar);
    if (!value) return value.status();
    out.emplace(arg.name, std::move(*value));
  }
  return out;
}

std::string valueText(const sdk::CommandValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* d = std::get_if<double>(&value)) {
    if (!std::isfinite(*d)) return std::isnan(*d) ? "nan" : (*d > 0 ? "inf" : "-inf");
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, *d);
    std::string text(buf, ec == std::errc() ? end : buf);
    // Keep a float recognisable as one, as Python's str(2.0) == "2.0".
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
  }
  return valueJson(value);
}

std::string valueJson(const sdk::CommandValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return sdk::jsonQuote(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return std::to_string(v);
        } else {
          if (!std::isfinite(v)) return "null";
          return valueText(sdk::CommandValue(v));
        }
      },
      value);
}

}  // namespace abx::plugins::commands
