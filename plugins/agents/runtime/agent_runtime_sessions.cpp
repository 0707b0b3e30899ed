// The session table of AgentRuntime: creating, reading, updating and
// deleting sessions, forgetting a finished turn, and retention — TTL and
// LRU among idle sessions, when a session is created and on the retention
// timer — with the session.ended news for the listener.
#include <algorithm>

#include "agent_runtime.h"

namespace abx::plugins::agents {

using sdk::Status;

sdk::Result<SessionInfo> AgentRuntime::createSession(const std::string& agent,
                                                     std::map<std::string, std::string> metadata,
                                                     std::string owner,
                                                     std::vector<std::string> vault_ids) {
  std::string why;
  if (!resolver_(agent, why)) return Status::error(why, "not_found");
  SessionInfo info;
  {
    std::lock_guard lock(mutex_);
    evictLocked(1);
    SessionState state;
    state.info.id = options_.ids("agsess");
    state.info.agent = agent;
    state.info.owner = std::move(owner);
    state.info.created_at = state.info.last_active_at = options_.clock->unixSeconds();
    state.info.metadata = std::move(metadata);
    state.info.vault_ids = std::move(vault_ids);
    info = state.info;
    sessions_[info.id] = std::move(state);
  }
  announceEnded();
  persistAndWait();  // a session its creator was given survives a kill -9
  if (retention_) retention_->start();
  return info;
}

// A session as readers see it: in_progress while any of its turns is
// queued or running, and the usage its finished turns reported.
SessionInfo AgentRuntime::snapshotLocked(const SessionState& state) const {
  SessionInfo out = state.info;
  bool active = state.running;
  for (const auto& id : out.turn_ids) {
    auto t = turns_.find(id);
    if (t == turns_.end()) continue;
    if (!isTerminal(t->second.turn.status)) {
      active = true;
      continue;
    }
    if (!out.usage) out.usage.emplace();
    addUsage(*out.usage, t->second.turn.usage);
  }
  if (out.status != SessionStatus::failed)
    out.status = active ? SessionStatus::in_progress : SessionStatus::idle;
  return out;
}

std::optional<SessionInfo> AgentRuntime::session(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  return snapshotLocked(it->second);
}

std::vector<SessionInfo> AgentRuntime::sessions() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionInfo> out;
  for (const auto& [id, s] : sessions_) out.push_back(snapshotLocked(s));
  return out;
}

RuntimeLoad AgentRuntime::load() const {
  std::lock_guard lock(mutex_);
  RuntimeLoad out;
  out.sessions = sessions_.size();
  out.queued = pending_.size();
  // One running turn per session at most: a running session is one running turn.
  for (const auto& [id, s] : sessions_)
    if (s.running) ++out.running;
  return out;
}

void AgentRuntime::eraseSessionLocked(std::map<std::string, SessionState>::iterator it,
                                      std::string why) {
  for (const auto& turn_id : it->second.info.turn_ids) {
    auto t = turns_.find(turn_id);
    if (t == turns_.end()) continue;
    t->second.cancel->store(true);
    pending_.erase(std::remove(pending_.begin(), pending_.end(), turn_id), pending_.end());
    // The running turn keeps its record until its worker finishes it
    // (finishTurn then drops it: its session is gone).
    if (t->second.turn.status == TurnStatus::in_progress) continue;
    for (auto& hook : takeEndHooksLocked(turn_id)) orphaned_hooks_.push_back(std::move(hook));
    turns_.erase(t);
  }
  ended_.emplace_back(std::move(it->second.info), std::move(why));
  sessions_.erase(it);
}

void AgentRuntime::announceEnded() {
  std::vector<std::pair<SessionInfo, std::string>> ended;
  std::vector<TurnEndHook> orphaned;
  {
    std::lock_guard lock(mutex_);
    ended.swap(ended_);
    orphaned.swap(orphaned_hooks_);
  }
  for (auto& hook : orphaned) hook(std::nullopt);
  if (!options_.listener) return;
  for (auto& [info, why] : ended) {
    RuntimeEvent event;
    event.type = "session.ended";
    event.delta = std::move(why);
    const std::string id = info.id;
    event.session = std::make_shared<const SessionInfo>(std::move(info));
    options_.listener(id, event);
  }
}

bool AgentRuntime::deleteSession(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    eraseSessionLocked(it, "The session was deleted.");
  }
  announceEnded();
  turn_changed_.notify_all();
  persist();
  return true;
}

bool AgentRuntime::setMetadata(const std::string& id, std::map<std::string, std::string> metadata) {
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    it->second.info.metadata = std::move(metadata);
  }
  persist();
  return true;
}

bool AgentRuntime::forgetTurn(const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(id);
    if (it == turns_.end() || !isTerminal(it->second.turn.status)) return false;
    if (auto s = sessions_.find(it->second.turn.session_id); s != sessions_.end()) {
      auto& ids = s->second.info.turn_ids;
      ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
    }
    turns_.erase(it);
  }
  persist();
  return true;
}

void AgentRuntime::retain() {
  {
    std::lock_guard lock(mutex_);
    const auto before = sessions_.size();
    evictLocked(0);
    if (sessions_.size() == before) return;
  }
  announceEnded();
  turn_changed_.notify_all();
  persist();
}

void AgentRuntime::evictLocked(std::size_t room) {
  const auto now = options_.clock->unixSeconds();
  auto busy = [&](const SessionState& s) {
    if (s.running) return true;
    for (const auto& id : s.info.turn_ids)
      if (auto t = turns_.find(id); t != turns_.end() && !isTerminal(t->second.turn.status))
        return true;
    return false;
  };
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    auto next = std::next(it);
    if (!busy(it->second) && now - it->second.info.last_active_at > options_.session_ttl_s)
      eraseSessionLocked(it, "The session expired: it was idle longer than " +
                                 std::to_string(options_.session_ttl_s) +
                                 " s (ABX_AGENTS_SESSION_TTL_S).");
    it = next;
  }
  // Room for the sessions about to be created: drop the least recently
  // active idle ones; running sessions are never evicted.
  while (sessions_.size() + room > options_.max_sessions) {
    auto victim = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (!busy(it->second) &&
          (victim == sessions_.end() ||
           it->second.info.last_active_at < victim->second.info.last_active_at))
        victim = it;
    if (victim == sessions_.end()) break;
    eraseSessionLocked(victim, "The session was evicted: the server keeps at most " +
                                   std::to_string(options_.max_sessions) +
                                   " sessions (ABX_AGENTS_MAX_SESSIONS).");
  }
}

}  // namespace abx::plugins::agents
