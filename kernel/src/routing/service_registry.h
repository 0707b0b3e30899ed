// The host's typed service registry (e.g. abx.agent_adapter.v1 providers).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/services.h"

namespace abx::kernel {

class ServiceRegistry final : public sdk::ServiceRegistry {
 public:
  sdk::Status provideRaw(std::string_view service_id, std::string_view name,
                         void* instance) override;
  void* findRaw(std::string_view service_id, std::string_view name) const override;
  std::vector<std::pair<std::string, void*>> allRaw(std::string_view service_id) const override;
  std::size_t size() const;
  /** Drops entries added after the first @p size (a failed plugin's). */
  void truncate(std::size_t size);

 private:
  struct Entry {
    std::string service_id;
    std::string name;
    void* instance;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace abx::kernel
