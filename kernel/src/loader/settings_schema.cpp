#include "loader/settings_schema.h"

#include <charconv>
#include <vector>

#include "abx/sdk/json.h"
#include "text/did_you_mean.h"

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

}  // namespace

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
