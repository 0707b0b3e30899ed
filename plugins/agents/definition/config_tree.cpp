// YAML and JSON into one ConfigValue tree. YAML plain scalars are typed here
// (core schema) so that `max_turns: 40` in YAML and `"max_turns": 40` in JSON
// reach the definition parser as the same integer.
#include "definition/config_tree.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace abx::plugins::agents {

ConfigValue::ConfigValue() = default;

namespace {

using sdk::Result;
using sdk::Status;

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (s == o) return true;
  return false;
}

bool isDecimalInteger(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isDecimalFloat(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    std::size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

ConfigValue stringValue(std::string text) {
  ConfigValue v;
  v.kind = ConfigValue::Kind::string;
  v.text = std::move(text);
  return v;
}

// YAML 1.2 core schema for a plain scalar; anything else stays a string.
ConfigValue typedPlainScalar(const std::string& text) {
  ConfigValue v;
  v.text = text;
  if (isOneOf(text, {"", "~", "null", "Null", "NULL"})) return v;
  if (isOneOf(text, {"true", "True", "TRUE", "false", "False", "FALSE"})) {
    v.kind = ConfigValue::Kind::boolean;
    v.boolean = text[0] == 't' || text[0] == 'T';
    return v;
  }
  if (isDecimalInteger(text)) {
    std::string_view digits = text;
    if (digits[0] == '+') digits.remove_prefix(1);
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size()) {
      v.kind = ConfigValue::Kind::integer;
      v.integer = n;
      v.number = static_cast<double>(n);
      return v;
    }
  }
  if (isDecimalFloat(text) || isOneOf(text, {".inf", "+.inf", "-.inf", ".nan"})) {
    v.kind = ConfigValue::Kind::number;
    if (text == ".nan")
      v.number = std::numeric_limits<double>::quiet_NaN();
    else if (text.find(".inf") != std::string::npos)
      v.number = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    else
      v.number = std::strtod(text.c_str(), nullptr);
    return v;
  }
  return stringValue(text);
}

ConfigValue fromYamlNode(const YAML::Node& node) {
  ConfigValue v;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return v;
    case YAML::NodeType::Scalar:
      // "?" marks a plain scalar; quoted scalars and !!str are strings.
      if (node.Tag() == "?") return typedPlainScalar(node.Scalar());
      return stringValue(node.Scalar());
    case YAML::NodeType::Sequence:
      v.kind = ConfigValue::Kind::array;
      for (const auto& item : node) v.items.push_back(fromYamlNode(item));
      return v;
    case YAML::NodeType::Map:
      v.kind = ConfigValue::Kind::object;
      for (const auto& member : node) {
        // Non-scalar keys cannot name a field; their text is "" and fails as an unknown key.
        std::string key = member.first.IsScalar() ? member.first.Scalar() : std::string();
        v.members.emplace_back(std::move(key), fromYamlNode(member.second));
      }
      return v;
  }
  return v;
}

}  // namespace

const ConfigValue* ConfigValue::find(std::string_view key) const {
  for (const auto& [name, value] : members)
    if (name == key) return &value;
  return nullptr;
}

std::string_view kindName(ConfigValue::Kind kind) {
  switch (kind) {
    case ConfigValue::Kind::null:
      return "null";
    case ConfigValue::Kind::boolean:
      return "boolean";
    case ConfigValue::Kind::integer:
      return "integer";
    case ConfigValue::Kind::number:
      return "number";
    case ConfigValue::Kind::string:
      return "string";
    case ConfigValue::Kind::array:
      return "array";
    case ConfigValue::Kind::object:
      return "object";
  }
  return "value";
}

Result<ConfigValue> configFromYaml(std::string_view text) {
  try {
    return fromYamlNode(YAML::Load(std::string(text)));
  } catch (const YAML::Exception& e) {
    return Status::error(
        "Invalid YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")", "ValueError");
  }
}

ConfigValue configFromJson(const sdk::Json& json) {
  ConfigValue v;
  switch (json.kind()) {
    case sdk::JsonKind::missing:
    case sdk::JsonKind::null:
      return v;
    case sdk::JsonKind::string:
      return stringValue(std::string(json.stringView()));
    case sdk::JsonKind::object:
      v.kind = ConfigValue::Kind::object;
      for (const auto& [key, member] : json.members())
        v.members.emplace_back(key, configFromJson(member));
      return v;
    case sdk::JsonKind::array:
      v.kind = ConfigValue::Kind::array;
      for (const auto& element : json.elements()) v.items.push_back(configFromJson(element));
      return v;
    case sdk::JsonKind::boolean:
      v.kind = ConfigValue::Kind::boolean;
      v.boolean = json.asBoolean().value();
      v.text = v.boolean ? "true" : "false";
      return v;
    case sdk::JsonKind::integer:
    case sdk::JsonKind::number:
      break;
  }
  v.text = json.dump();  // the number as spelled in the document
  if (auto integer = json.asInteger()) {
    v.kind = ConfigValue::Kind::integer;
    v.integer = *integer;
    v.number = static_cast<double>(v.integer);
  } else {
    // A fraction, an exponent, or an integer beyond 64 bits.
    v.kind = ConfigValue::Kind::number;
    v.number = json.asNumber().value();
  }
  return v;
}

Result<ConfigValue> configFromJson(std::string_view text) {
  auto json = sdk::Json::parse(text);
  if (!json) return json.status();
  return configFromJson(*json);
}

}  // namespace abx::plugins::agents
