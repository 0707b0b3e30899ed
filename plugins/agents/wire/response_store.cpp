#include "response_store.h"

#include <algorithm>

namespace abx::plugins::agents {

void ResponseStore::add(std::shared_ptr<ResponseRun> run) {
  std::lock_guard lock(mutex_);
  const std::string id = run->id();
  if (!runs_.count(id)) order_.push_back(id);
  runs_[id] = std::move(run);
  // Drop the oldest finished runs beyond the bound; a running one stays.
  for (auto it = order_.begin(); order_.size() > kResponses && it != order_.end();) {
    auto run_it = runs_.find(*it);
    if (run_it == runs_.end() || run_it->second->finished()) {
      if (run_it != runs_.end()) runs_.erase(run_it);
      it = order_.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<ResponseRun> ResponseStore::find(const std::string& response_id) const {
  std::lock_guard lock(mutex_);
  auto it = runs_.find(response_id);
  return it == runs_.end() ? nullptr : it->second;
}

void ResponseStore::erase(const std::string& response_id) {
  std::lock_guard lock(mutex_);
  runs_.erase(response_id);
  order_.erase(std::remove(order_.begin(), order_.end(), response_id), order_.end());
}

std::optional<std::string> ResponseStore::idempotent(const std::string& key,
                                                     std::int64_t now) const {
  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  if (it == keys_.end() || now - it->second.at > kIdempotencyTtlS) return std::nullopt;
  return it->second.response_id;
}

void ResponseStore::remember(const std::string& key, const std::string& response_id,
                             std::int64_t now) {
  std::lock_guard lock(mutex_);
  if (!keys_.count(key)) key_order_.push_back(key);
  keys_[key] = {response_id, now};
  while (key_order_.size() > kIdempotencyKeys) {
    keys_.erase(key_order_.front());
    key_order_.pop_front();
  }
}

}  // namespace abx::plugins::agents
