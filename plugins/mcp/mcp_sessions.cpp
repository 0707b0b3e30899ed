#include "mcp_sessions.h"

#include "abx/sdk/random.h"

namespace abx::plugins::mcp {

SessionTable::SessionTable(std::size_t max_sessions, std::chrono::seconds idle,
                           std::function<Clock::time_point()> now)
    : max_(max_sessions), idle_(idle), now_(std::move(now)) {}

void SessionTable::expireLocked(Clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();)
    it = now - it->second.last_used >= idle_ ? sessions_.erase(it) : std::next(it);
}

std::optional<std::string> SessionTable::open(const std::string& identity,
                                              const std::string& version) {
  std::lock_guard lock(mutex_);
  const auto now = now_();
  expireLocked(now);
  if (sessions_.size() >= max_) return std::nullopt;
  // 128 bits from the kernel's CSPRNG: visible ASCII, as the transport asks.
  std::string id = sdk::randomHex(16);
  sessions_[id] = Session{identity, version, false, now};
  return id;
}

SessionTable::Lookup SessionTable::use(const std::string& id, const std::string& identity,
                                       Session* out) {
  std::lock_guard lock(mutex_);
  const auto now = now_();
  expireLocked(now);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.identity != identity) return Lookup::unknown;
  it->second.last_used = now;
  if (out) *out = it->second;
  return Lookup::found;
}

void SessionTable::markInitialized(const std::string& id) {
  std::lock_guard lock(mutex_);
  if (auto it = sessions_.find(id); it != sessions_.end()) it->second.initialized = true;
}

bool SessionTable::close(const std::string& id, const std::string& identity) {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.identity != identity) return false;
  sessions_.erase(it);
  return true;
}

std::size_t SessionTable::size() {
  std::lock_guard lock(mutex_);
  expireLocked(now_());
  return sessions_.size();
}

}  // namespace abx::plugins::mcp
