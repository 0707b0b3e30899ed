// AgentRuntime and sessions.json: the sessions and turns read back at
// start, and every change saved by one writer thread, off the turns' path.
#include <pthread.h>

#include <system_error>

#include "agent_runtime.h"
#include "session_file.h"

namespace abx::plugins::agents {

using sdk::Status;

namespace {
// How long a change a client is about to be told of waits for its save; a
// disk slower than this delays the news no longer (the save still follows).
constexpr std::chrono::seconds kDurableWait{5};
}  // namespace

Status AgentRuntime::restore() {
  if (!file_) return Status::ok();
  auto loaded = file_->load(options_.clock->unixSeconds());
  if (!loaded) return loaded.status();
  {
    std::lock_guard lock(mutex_);
    for (auto& record : loaded->sessions) {
      SessionState state;
      state.info = std::move(record);
      state.info.status = SessionStatus::idle;
      sessions_[state.info.id] = std::move(state);
    }
    for (auto& turn : loaded->turns) {
      TurnState state;
      state.turn = std::move(turn);
      turns_[state.turn.id] = std::move(state);
    }
  }
  if (loaded->interrupted) persist();
  if (retention_ && !loaded->sessions.empty()) retention_->start();
  return Status::ok();
}

std::uint64_t AgentRuntime::persist() {
  if (!file_) return 0;
  std::uint64_t generation;
  {
    std::lock_guard lock(persist_mutex_);
    dirty_ = true;
    generation = ++asked_;
    if (!writer_.joinable() && !writer_stopping_) {
      try {
        writer_ = std::thread([this] { writerLoop(); });
        ::pthread_setname_np(writer_.native_handle(), "abx-agents-save");
      } catch (const std::system_error&) {
        // No thread to be had: the next persist() tries again, shutdown() saves.
      }
    }
  }
  persist_wanted_.notify_one();
  return generation;
}

void AgentRuntime::persistAndWait() {
  const auto generation = persist();
  if (generation == 0) return;
  std::unique_lock lock(persist_mutex_);
  // No writer (none could start, or shutdown took over): shutdown() saves.
  persist_done_.wait_for(lock, kDurableWait, [&] {
    return saved_ >= generation || writer_stopping_ || !writer_.joinable();
  });
}

void AgentRuntime::writerLoop() {
  std::unique_lock lock(persist_mutex_);
  while (true) {
    persist_wanted_.wait(lock, [&] { return dirty_ || writer_stopping_; });
    if (dirty_) {
      // One write covers every change made before it starts.
      dirty_ = false;
      const std::uint64_t generation = asked_;
      lock.unlock();
      writeState();
      lock.lock();
      saved_ = generation;
      persist_done_.notify_all();
    }
    if (writer_stopping_ && !dirty_) return;
  }
}

void AgentRuntime::writeState() {
  std::vector<SessionInfo> sessions;
  std::vector<Turn> turns;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, s] : sessions_) sessions.push_back(s.info);
    for (const auto& [id, t] : turns_) turns.push_back(t.turn);
  }
  const auto saved = file_->save(sessions, turns);
  // A full disk fails every save until space comes back: one line when it
  // starts and one when it ends, not one per turn.
  const bool was_failing = save_failing_;
  save_failing_ = !saved;
  if (was_failing == save_failing_ || !options_.log) return;
  if (save_failing_)
    options_.log->warn("agents: sessions not saved (the previous " + file_->path() +
                       " stays): " + saved.message());
  else
    options_.log->info("agents: sessions saved again to " + file_->path());
}

}  // namespace abx::plugins::agents
