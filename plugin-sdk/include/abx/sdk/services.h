// ServiceRegistry: typed provide/lookup between plugins by a versioned id.
// A service type T names its id in `static constexpr const char* kServiceId`
// (e.g. "abx.agent_adapter.v1"); the id's version makes the cast safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

/**
 * THREAD: provide() during Plugin::start() only; lookups from anywhere after.
 * OWNERSHIP: the provider owns the instance and keeps it alive until stop().
 */
class ABX_SDK_API ServiceRegistry {
 public:
  /** Registers @p instance as @p name; a second provider of the same name fails. */
  virtual Status provideRaw(std::string_view service_id, std::string_view name, void* instance) = 0;
  virtual void* findRaw(std::string_view service_id, std::string_view name) const = 0;
  /** Every (name, instance) provided for @p service_id, in registration order. */
  virtual std::vector<std::pair<std::string, void*>> allRaw(std::string_view service_id) const = 0;

  template <class T>
  Status provide(std::string_view name, T& instance) {
    return provideRaw(T::kServiceId, name, &instance);
  }
  template <class T>
  T* find(std::string_view name) const {
    return static_cast<T*>(findRaw(T::kServiceId, name));
  }
  template <class T>
  std::vector<std::pair<std::string, T*>> all() const {
    std::vector<std::pair<std::string, T*>> out;
    for (auto& [n, p] : allRaw(T::kServiceId)) out.emplace_back(n, static_cast<T*>(p));
    return out;
  }

 protected:
  ~ServiceRegistry();
};

}  // namespace abx::sdk
