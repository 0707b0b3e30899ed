// Params: typed reads of an endpoint's declared policy parameters.
#include <algorithm>

#include "abx/sdk/policy.h"

namespace abx::sdk {
namespace {

template <class T>
std::optional<T> alternative(const ParamValue* value) {
  if (!value) return std::nullopt;
  if (const T* held = std::get_if<T>(value)) return *held;
  return std::nullopt;
}

}  // namespace

const ParamValue* Params::find(std::string_view key) const {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const auto& entry) { return entry.first == key; });
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<bool> Params::boolean(std::string_view key) const {
  return alternative<bool>(find(key));
}

std::optional<std::int64_t> Params::integer(std::string_view key) const {
  return alternative<std::int64_t>(find(key));
}

std::optional<double> Params::number(std::string_view key) const {
  const ParamValue* value = find(key);
  if (auto whole = alternative<std::int64_t>(value)) return static_cast<double>(*whole);
  return alternative<double>(value);
}

std::optional<std::string> Params::string(std::string_view key) const {
  return alternative<std::string>(find(key));
}

std::optional<std::vector<std::string>> Params::strings(std::string_view key) const {
  return alternative<std::vector<std::string>>(find(key));
}

std::optional<std::vector<std::int64_t>> Params::integers(std::string_view key) const {
  return alternative<std::vector<std::int64_t>>(find(key));
}

void Params::set(std::string key, ParamValue value) {
  for (auto& entry : entries_) {
    if (entry.first != key) continue;
    entry.second = std::move(value);
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

}  // namespace abx::sdk
