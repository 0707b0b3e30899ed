#include "session_memory.h"

#include <algorithm>

namespace abx::plugins::agents {
namespace {

constexpr std::int64_t kKeyTtlS = 24 * 3600;
constexpr std::size_t kKeysPerSession = 256;

}  // namespace

bool SessionKeys::firstUse(const std::string& session_id, const std::string& key,
                           std::int64_t now) {
  std::lock_guard lock(mutex_);
  auto& keys = keys_[session_id];
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const auto& k) { return now - k.second > kKeyTtlS; }),
             keys.end());
  if (std::any_of(keys.begin(), keys.end(), [&](const auto& k) { return k.first == key; }))
    return false;
  keys.emplace_back(key, now);
  if (keys.size() > kKeysPerSession) keys.erase(keys.begin());
  return true;
}

void SessionKeys::forget(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  keys_.erase(session_id);
}

void SessionOverridesStore::set(const std::string& session_id, SessionOverrides overrides) {
  std::lock_guard lock(mutex_);
  overrides_[session_id] = std::move(overrides);
}

SessionOverrides SessionOverridesStore::get(const std::string& session_id) const {
  std::lock_guard lock(mutex_);
  auto it = overrides_.find(session_id);
  return it == overrides_.end() ? SessionOverrides{} : it->second;
}

void SessionOverridesStore::forget(const std::string& session_id) {
  std::lock_guard lock(mutex_);
  overrides_.erase(session_id);
}

}  // namespace abx::plugins::agents
