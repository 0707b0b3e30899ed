#include "loader/settings_schema.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <vector>

#include "abx/sdk/json.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

bool isInteger(const std::string& s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool isNumber(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<std::string> envBoolean(std::string_view given) {
  std::string text(given);
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* yes : {"1", "true", "yes", "on"})
    if (text == yes) return std::string("true");
  for (const char* no : {"0", "false", "no", "off"})
    if (text == no) return std::string("false");
  return std::nullopt;
}

std::vector<std::string> commaList(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto piece = text.substr(0, comma);
    while (!piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    while (!piece.empty() && piece.back() == ' ') piece.remove_suffix(1);
    if (!piece.empty()) out.emplace_back(piece);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/** The variables that may set @p key: ABX_<PLUGIN>_<KEY>, then "x-env". */
std::vector<std::string> envNames(const std::string& prefix, const std::string& key,
                                  const sdk::Json& property) {
  std::string derived = prefix;
  for (char c : key) derived += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
  std::vector<std::string> names{derived};
  auto extra = property.get("x-env");
  if (extra.isString()) names.emplace_back(extra.stringView());
  for (const auto& name : extra.elements())
    if (name.isString()) names.emplace_back(name.stringView());
  return names;
}

/** A scalar's setting text: a string's own text, a number or boolean as written. */
std::optional<std::string> settingText(const sdk::Json& value) {
  if (value.isString()) return std::string(value.stringView());
  auto kind = value.kind();
  if (kind == sdk::JsonKind::integer || kind == sdk::JsonKind::number ||
      kind == sdk::JsonKind::boolean)
    return value.dump();
  return std::nullopt;
}

/** A property's "default" as setting text, or its list for an array. */
void applyDefault(const std::string& key, const sdk::Json& fallback, sdk::Settings& out) {
  if (fallback.isArray()) {
    std::vector<std::string> items;
    for (const auto& item : fallback.elements())
      if (auto text = settingText(item)) items.push_back(*text);
    out.lists[key] = std::move(items);
  } else if (auto text = settingText(fallback)) {
    out.values[key] = *text;
  }
}

/** Sets @p key from the first set variable; an error names the variable. */
std::optional<std::string> applyEnvironment(const std::string& key, const std::string& type,
                                            const std::vector<std::string>& names,
                                            const EnvReader& env, sdk::Settings& out,
                                            std::string& source) {
  for (const auto& name : names) {
    auto value = env(name);
    if (!value || value->empty()) continue;
    source = name;
    out.values.erase(key);
    out.lists.erase(key);
    if (type == "array") {
      out.lists[key] = commaList(*value);
    } else if (type == "boolean") {
      auto flag = envBoolean(*value);
      if (!flag)
        return name + ": setting '" + key + "' must be 1/0, true/false, yes/no or on/off, got '" +
               *value + "'";
      out.values[key] = *flag;
    } else {
      out.values[key] = *value;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> processEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value) return std::nullopt;
  return std::string(value);
}

std::string settingsEnvPrefix(std::string_view plugin_id) {
  auto dot = plugin_id.rfind('.');
  auto last = dot == std::string_view::npos ? plugin_id : plugin_id.substr(dot + 1);
  std::string prefix = "ABX_";
  for (char c : last) prefix += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(c) : '_';
  return prefix + "_";
}

sdk::Result<sdk::Settings> resolveSettings(const char* schema, std::string_view plugin_id,
                                           sdk::Settings manifest, const EnvReader& env) {
  auto error = [&](const std::string& message) {
    return sdk::Status::error(message, "ConfigError");
  };
  if (auto problem = validateSettings(schema, manifest)) return error(*problem);
  if (!schema) return manifest;
  auto parsed = sdk::Json::parse(schema);
  const std::string prefix = settingsEnvPrefix(plugin_id);
  std::vector<std::pair<std::string, std::string>> from_env;  // key, variable
  for (const auto& [key, property] : parsed->get("properties").members()) {
    std::string type(property.get("type").stringView());
    std::string source;
    if (auto problem =
            applyEnvironment(key, type, envNames(prefix, key, property), env, manifest, source))
      return error(*problem);
    if (!source.empty()) from_env.emplace_back(key, source);
    if (!manifest.values.count(key) && !manifest.lists.count(key))
      applyDefault(key, property.get("default"), manifest);
  }
  if (auto problem = validateSettings(schema, manifest)) {
    for (const auto& [key, variable] : from_env)
      if (problem->find("'" + key + "'") != std::string::npos)
        return error(variable + ": " + *problem);
    return error(*problem);
  }
  return manifest;
}

std::optional<std::string> validateSettings(const char* schema, const sdk::Settings& settings) {
  std::vector<std::string> given;
  for (const auto& [k, v] : settings.values) given.push_back(k);
  for (const auto& [k, v] : settings.lists) given.push_back(k);
  if (!schema) {
    if (!given.empty()) return "unknown setting '" + given.front() + "' (the plugin takes none)";
    return std::nullopt;
  }
  auto parsed = sdk::Json::parse(schema);
  if (!parsed) return "the plugin's config schema is not valid JSON";
  auto properties = parsed->object("properties");
  if (!properties) return "the plugin's config schema has a bad 'properties'";
  auto known = properties->keys();
  for (const auto& key : given) {
    if (!properties->has(key)) return "unknown setting '" + key + "'" + didYouMean(key, known);
    auto spec = properties->object(key);
    std::string type = spec ? spec->string("type", std::string()).value() : std::string();
    bool is_list = settings.lists.count(key) > 0;
    if (type == "array") {
      if (!is_list) return "setting '" + key + "' must be a list";
      continue;
    }
    if (is_list) {
      if (!type.empty()) return "setting '" + key + "' must be a " + type + ", not a list";
      continue;
    }
    const auto& value = settings.values.at(key);
    if (type == "integer" && !isInteger(value))
      return "setting '" + key + "' must be an integer, got '" + value + "'";
    if (type == "number" && !isNumber(value))
      return "setting '" + key + "' must be a number, got '" + value + "'";
    if (type == "boolean" && value != "true" && value != "false")
      return "setting '" + key + "' must be true or false, got '" + value + "'";
  }
  if (auto required = parsed->stringList("required", std::vector<std::string>{})) {
    for (const auto& key : *required)
      if (!settings.values.count(key) && !settings.lists.count(key))
        return "missing required setting '" + key + "'";
  }
  return std::nullopt;
}

}  // namespace abx::kernel
