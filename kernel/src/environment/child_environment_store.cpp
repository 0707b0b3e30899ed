#include "environment/child_environment_store.h"

#include <algorithm>
#include <cctype>

namespace abx::kernel {

ChildEnvironmentStore::ChildEnvironmentStore(char** environ) {
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    auto name = entry.substr(0, eq);
    if (isProtectedLocked(name)) continue;
    vars_.emplace(std::string(name), std::string(entry.substr(eq + 1)));
  }
}

bool ChildEnvironmentStore::isProtected(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return isProtectedLocked(name);
}

bool ChildEnvironmentStore::isProtectedLocked(std::string_view name) const {
  if (name.starts_with("ABX_SERVER_")) return true;
  return std::find(protected_.begin(), protected_.end(), name) != protected_.end();
}

void ChildEnvironmentStore::protect(const std::vector<std::string>& names) {
  std::lock_guard lock(mutex_);
  for (const auto& n : names) {
    if (std::find(protected_.begin(), protected_.end(), n) == protected_.end())
      protected_.push_back(n);
    vars_.erase(n);
  }
}

std::vector<std::string> ChildEnvironmentStore::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.reserve(vars_.size());
  for (const auto& [k, v] : vars_) out.push_back(k + "=" + v);
  return out;
}

std::optional<std::string> ChildEnvironmentStore::get(std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

sdk::Status ChildEnvironmentStore::set(std::string_view name, std::string_view value) {
  bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name.front())) &&
               std::all_of(name.begin(), name.end(), [](char c) {
                 return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
               });
  if (!valid)
    return sdk::Status::error("Invalid environment variable name: '" + std::string(name) + "'",
                              "ValueError");
  if (value.find('\0') != std::string_view::npos)
    return sdk::Status::error("Environment values cannot contain NUL bytes", "ValueError");
  std::lock_guard lock(mutex_);
  if (isProtectedLocked(name))
    return sdk::Status::error("Cannot modify protected variable: " + std::string(name),
                              "PermissionError");
  vars_[std::string(name)] = std::string(value);
  return sdk::Status::ok();
}

}  // namespace abx::kernel
