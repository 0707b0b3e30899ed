// Settings lookups for plugins.
#include "abx/sdk/settings.h"

#include <charconv>

namespace abx::sdk {

std::optional<std::string> Settings::get(std::string_view key) const {
  auto it = values.find(key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Settings::path(std::string_view key) const {
  auto value = get(key);
  if (!value || value->empty() || value->front() == '/' || manifest_dir.empty()) return value;
  return manifest_dir + "/" + *value;
}

std::optional<std::int64_t> Settings::integer(std::string_view key) const {
  auto text = get(key);
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

std::optional<double> Settings::number(std::string_view key) const {
  auto text = get(key);
  if (!text || text->empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

std::optional<bool> Settings::boolean(std::string_view key) const {
  auto text = get(key);
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::optional<std::vector<std::string>> Settings::list(std::string_view key) const {
  auto it = lists.find(key);
  if (it == lists.end()) return std::nullopt;
  return it->second;
}

}  // namespace abx::sdk
