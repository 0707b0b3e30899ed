// Settings lookups for plugins.
#include "abx/sdk/settings.h"

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

}  // namespace abx::sdk
