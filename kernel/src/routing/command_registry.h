// The host's command registry: plugins add commands during start(); it is
// frozen before the server takes requests, so reads need no lock.
#pragma once

#include <atomic>
#include <deque>
#include <mutex>

#include "abx/sdk/commands.h"

namespace abx::kernel {

class CommandRegistry final : public sdk::CommandRegistry {
 public:
  sdk::Status add(sdk::CommandSpec command) override;
  std::vector<const sdk::CommandSpec*> list() const override;
  const sdk::CommandSpec* find(std::string_view name) const override;
  /** After this, add() fails. */
  void freeze() { frozen_.store(true, std::memory_order_release); }
  std::size_t size() const;
  /** Drops commands added after the first @p size (a failed plugin's). */
  void truncate(std::size_t size);

 private:
  std::atomic<bool> frozen_{false};
  mutable std::mutex mutex_;               // guards additions against reads during start-up
  std::deque<sdk::CommandSpec> commands_;  // deque: stable addresses
};

}  // namespace abx::kernel
