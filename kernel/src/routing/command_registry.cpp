#include "routing/command_registry.h"

#include <algorithm>
#include <cctype>

namespace abx::kernel {

sdk::Status CommandRegistry::add(sdk::CommandSpec command) {
  if (frozen_.load(std::memory_order_acquire))
    return sdk::Status::error("command registry is frozen: register commands in start()",
                              "RuntimeError");
  bool valid =
      !command.name.empty() && std::all_of(command.name.begin(), command.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
  if (!valid)
    return sdk::Status::error("command name must be [A-Za-z0-9_.-]+, got '" + command.name + "'",
                              "ValueError");
  if (!command.fn)
    return sdk::Status::error("command '" + command.name + "' has no function", "ValueError");
  std::lock_guard lock(mutex_);
  for (const auto& existing : commands_)
    if (existing.name == command.name)
      return sdk::Status::error("duplicate command '" + command.name + "'", "ValueError");
  commands_.push_back(std::move(command));
  return sdk::Status::ok();
}

std::size_t CommandRegistry::size() const {
  std::lock_guard lock(mutex_);
  return commands_.size();
}

void CommandRegistry::truncate(std::size_t size) {
  std::lock_guard lock(mutex_);
  if (size < commands_.size()) commands_.resize(size);
}

std::vector<const sdk::CommandSpec*> CommandRegistry::list() const {
  std::lock_guard lock(mutex_);
  std::vector<const sdk::CommandSpec*> out;
  out.reserve(commands_.size());
  for (const auto& c : commands_) out.push_back(&c);
  return out;
}

const sdk::CommandSpec* CommandRegistry::find(std::string_view name) const {
  std::lock_guard lock(mutex_);
  for (const auto& c : commands_)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace abx::kernel
