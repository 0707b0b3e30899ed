// RuntimeClock: the time source of the runtime, injectable so retention and
// ordering tests do not sleep.
#pragma once

#include <chrono>
#include <cstdint>

namespace abx::plugins::agents {

class RuntimeClock {
 public:
  virtual ~RuntimeClock() = default;
  /** Unix seconds (created_at, last_active_at, TTLs). */
  virtual std::int64_t unixSeconds() const = 0;
};

class SystemRuntimeClock final : public RuntimeClock {
 public:
  std::int64_t unixSeconds() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace abx::plugins::agents
