#include "routing/service_registry.h"

namespace abx::kernel {

sdk::Status ServiceRegistry::provideRaw(std::string_view service_id, std::string_view name,
                                        void* instance) {
  if (service_id.empty() || name.empty() || !instance)
    return sdk::Status::error("service id, name and instance are required", "ValueError");
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e.service_id == service_id && e.name == name)
      return sdk::Status::error(
          "service " + std::string(service_id) + " '" + std::string(name) + "' is already provided",
          "ValueError");
  entries_.push_back({std::string(service_id), std::string(name), instance});
  return sdk::Status::ok();
}

std::size_t ServiceRegistry::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void ServiceRegistry::truncate(std::size_t size) {
  std::lock_guard lock(mutex_);
  if (size < entries_.size()) entries_.resize(size);
}

void* ServiceRegistry::findRaw(std::string_view service_id, std::string_view name) const {
  std::lock_guard lock(mutex_);
  for (const auto& e : entries_)
    if (e.service_id == service_id && e.name == name) return e.instance;
  return nullptr;
}

std::vector<std::pair<std::string, void*>> ServiceRegistry::allRaw(
    std::string_view service_id) const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::string, void*>> out;
  for (const auto& e : entries_)
    if (e.service_id == service_id) out.emplace_back(e.name, e.instance);
  return out;
}

}  // namespace abx::kernel
