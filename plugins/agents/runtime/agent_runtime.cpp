// AgentRuntime's workers and turn queue: starting and stopping them,
// submitting, cancelling and waiting for turns, and recording a turn's end.
#include "agent_runtime.h"

#include <pthread.h>

#include <algorithm>
#include <set>
#include <system_error>

#include "session_file.h"

namespace abx::plugins::agents {

using sdk::Status;

AgentRuntime::AgentRuntime(RuntimeOptions options, AgentResolver resolver)
    : options_(std::move(options)), resolver_(std::move(resolver)) {
  if (!options_.clock) options_.clock = std::make_shared<SystemRuntimeClock>();
  if (!options_.ids) options_.ids = randomId;
  if (!options_.base_env) options_.base_env = [] { return std::vector<std::string>{}; };
  // The writer and the workers start on first use (persist(), submitTurn()):
  // an idle server holds no thread (nor its stack) for them.
  if (!options_.state_dir.empty()) file_ = std::make_unique<SessionFile>(options_.state_dir);
  if (options_.retention_interval)
    retention_ =
        std::make_unique<RetentionTimer>(*options_.retention_interval, [this] { retain(); });
}

Status AgentRuntime::startWorkersLocked() {
  if (!workers_.empty()) return Status::ok();
  const std::size_t workers = std::max<std::size_t>(options_.max_concurrent_turns, 1);
  try {
    for (std::size_t i = 0; i < workers; ++i) {
      workers_.emplace_back([this] { workerLoop(); });
      // Named here, not by the thread: named (ps -L, top -H) from the start.
      ::pthread_setname_np(workers_.back().native_handle(), "abx-agents-turn");
    }
  } catch (const std::system_error& e) {
    if (workers_.empty())
      return Status::error(std::string("cannot start a turn worker: ") + e.what(), "unavailable");
  }
  return Status::ok();
}

AgentRuntime::~AgentRuntime() { shutdown(); }

void AgentRuntime::shutdown() {
  if (retention_) retention_->stop();
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    for (auto& [id, state] : turns_) state.cancel->store(true);
  }
  work_.notify_all();
  for (auto& worker : workers_)
    if (worker.joinable()) worker.join();
  workers_.clear();
  // Queued turns never run now: whoever waits for one is told it is gone.
  std::vector<TurnEndHook> unended;
  {
    std::lock_guard lock(mutex_);
    end_hooks_closed_ = true;
    for (auto& [id, hooks] : end_hooks_)
      for (auto& hook : hooks) unended.push_back(std::move(hook));
    end_hooks_.clear();
  }
  for (auto& hook : unended) hook(std::nullopt);
  // The last state is on disk before shutdown returns.
  bool unsaved = false;
  {
    std::lock_guard lock(persist_mutex_);
    writer_stopping_ = true;
    unsaved = dirty_ && !writer_.joinable();
  }
  persist_wanted_.notify_all();
  if (writer_.joinable()) writer_.join();
  if (unsaved) writeState();
}

sdk::Result<Turn> AgentRuntime::submitTurn(const std::string& session_id, TurnRequest request) {
  Turn snapshot;
  bool waits = false;
  TurnObserver observer = request.observer;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end())
      return Status::error("No session with id '" + session_id + "'.", "not_found");
    if (stopping_) return Status::error("the server is shutting down", "unavailable");
    if (auto started = startWorkersLocked(); !started) return started;
    TurnState state;
    state.turn.id = request.turn_id.empty() ? options_.ids("turn") : request.turn_id;
    if (turns_.count(state.turn.id))
      return Status::error("Turn id '" + state.turn.id + "' is taken.", "conflict");
    state.turn.session_id = session_id;
    state.turn.created_at = options_.clock->unixSeconds();
    state.turn.input = request.input;
    state.request = std::move(request);
    snapshot = state.turn;
    waits = waitsLocked(session_id);
    it->second.info.turn_ids.push_back(snapshot.id);
    it->second.info.last_active_at = snapshot.created_at;
    turns_[snapshot.id] = std::move(state);
  }
  // turn.queued (and turn.waiting) go out before a worker can see the
  // turn, so no turn.started can overtake them.
  RuntimeEvent queued;
  queued.type = "turn.queued";
  queued.turn_id = snapshot.id;
  queued.turn = std::make_shared<const Turn>(snapshot);
  publish(session_id, queued, observer);
  if (waits) {
    queued.type = "turn.waiting";
    publish(session_id, queued, observer);
  }
  {
    std::lock_guard lock(mutex_);
    if (turns_.count(snapshot.id)) pending_.push_back(snapshot.id);
  }
  work_.notify_one();
  // An accepted turn survives a kill -9 (failed "server restarted" then).
  persistAndWait();
  return snapshot;
}

bool AgentRuntime::waitsLocked(const std::string& session_id) const {
  std::size_t busy = 0;
  std::set<std::string> claimed;  // sessions whose first queued turn a free worker takes
  for (const auto& [id, s] : sessions_)
    if (s.running) ++busy;
  for (const auto& id : pending_) {
    const auto& owner = turns_.at(id).turn.session_id;
    if (owner == session_id) return true;
    if (!sessions_.at(owner).running) claimed.insert(owner);
  }
  if (sessions_.at(session_id).running) return true;
  return busy + claimed.size() >= options_.max_concurrent_turns;
}

void AgentRuntime::workerLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    std::string turn_id;
    work_.wait(lock, [&] {
      if (stopping_) return true;
      for (const auto& id : pending_) {
        auto& session = sessions_.at(turns_.at(id).turn.session_id);
        if (!session.running) return true;
      }
      return false;
    });
    if (stopping_) return;
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      auto& session = sessions_.at(turns_.at(*it).turn.session_id);
      if (session.running) continue;
      turn_id = *it;
      pending_.erase(it);
      session.running = true;
      break;
    }
    lock.unlock();
    try {
      runTurn(turn_id);
    } catch (const std::exception& e) {
      // Whatever escaped fails this turn only, never the server.
      finishTurn(
          turn_id,
          TurnEnd::failure(TurnError{"internal_error", std::string("turn failed: ") + e.what()}),
          true);
    }
    lock.lock();
    work_.notify_all();
  }
}

void AgentRuntime::finishTurn(const std::string& turn_id, TurnEnd end, bool releases_session) {
  RuntimeEvent done;
  std::string session_id;
  TurnObserver observer;
  std::vector<TurnEndHook> hooks;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    if (it == turns_.end()) return;
    auto& state = it->second;
    state.turn.status = end.status;
    state.ending = true;
    state.turn.error = std::move(end.error);
    if (!end.items.empty() || end.status != TurnStatus::cancelled)
      state.turn.items = std::move(end.items);
    state.turn.usage = end.usage;
    state.turn.completed_at = options_.clock->unixSeconds();
    observer = std::move(state.request.observer);
    // Nothing of the request outlives the turn (it may hold per-turn secrets).
    state.request = TurnRequest{};
    session_id = state.turn.session_id;
    if (auto s = sessions_.find(session_id); releases_session && s != sessions_.end()) {
      if (end.native_session_id) s->second.info.native_session_id = *end.native_session_id;
      s->second.info.last_active_at = state.turn.completed_at;
      s->second.running = false;
    }
    done.type = std::string("turn.") + turnStatusName(end.status);
    done.turn_id = turn_id;
    done.turn = std::make_shared<const Turn>(state.turn);
    hooks = takeEndHooksLocked(turn_id);
    if (!sessions_.count(session_id)) turns_.erase(it);
  }
  // On disk before any client hears of the end: a completed turn a client
  // saw survives a kill -9 of the server.
  persistAndWait();
  for (auto& hook : hooks) hook(*done.turn);
  publish(session_id, std::move(done), observer);
  {
    std::lock_guard lock(mutex_);
    if (auto it = turns_.find(turn_id); it != turns_.end()) it->second.ending = false;
  }
  turn_changed_.notify_all();
}

sdk::Result<Turn> AgentRuntime::cancelTurn(const std::string& turn_id) {
  bool was_queued = false;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    if (it == turns_.end()) return Status::error("No turn with id '" + turn_id + "'.", "not_found");
    auto& state = it->second;
    if (isTerminal(state.turn.status)) return state.turn;
    state.cancel->store(true);
    if (state.turn.status == TurnStatus::queued) {
      auto pos = std::find(pending_.begin(), pending_.end(), turn_id);
      if (pos != pending_.end()) {
        pending_.erase(pos);
        was_queued = true;
      }
    }
  }
  // A turn that never started does not hold its session's running flag.
  if (was_queued) finishTurn(turn_id, TurnEnd::cancelled(), false);
  auto snapshot = turn(turn_id);
  if (!snapshot) return Status::error("No turn with id '" + turn_id + "'.", "not_found");
  return *snapshot;
}

std::optional<Turn> AgentRuntime::waitTurn(const std::string& turn_id,
                                           std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  std::optional<Turn> out;
  turn_changed_.wait_for(lock, timeout, [&] {
    auto it = turns_.find(turn_id);
    return it == turns_.end() || (isTerminal(it->second.turn.status) && !it->second.ending);
  });
  if (auto it = turns_.find(turn_id); it != turns_.end()) out = it->second.turn;
  return out;
}

void AgentRuntime::whenTurnEnds(const std::string& turn_id, TurnEndHook then) {
  std::optional<Turn> ended;
  {
    std::lock_guard lock(mutex_);
    auto it = turns_.find(turn_id);
    // Checked and added under the lock that records a turn's end: an end
    // between the two cannot slip by.
    if (it != turns_.end() && !isTerminal(it->second.turn.status) && !end_hooks_closed_) {
      end_hooks_[turn_id].push_back(std::move(then));
      return;
    }
    if (it != turns_.end() && isTerminal(it->second.turn.status)) ended = it->second.turn;
  }
  then(ended);
}

std::vector<TurnEndHook> AgentRuntime::takeEndHooksLocked(const std::string& turn_id) {
  auto it = end_hooks_.find(turn_id);
  if (it == end_hooks_.end()) return {};
  auto hooks = std::move(it->second);
  end_hooks_.erase(it);
  return hooks;
}

std::optional<Turn> AgentRuntime::turn(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = turns_.find(id);
  if (it == turns_.end()) return std::nullopt;
  return it->second.turn;
}

void AgentRuntime::publish(const std::string& session_id, const RuntimeEvent& event,
                           const TurnObserver& observer) {
  if (observer) observer(event);
  if (options_.listener) options_.listener(session_id, event);
}

}  // namespace abx::plugins::agents
