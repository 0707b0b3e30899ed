#include "process_table.h"

#include <signal.h>

#include <algorithm>
#include <thread>

namespace abx::plugins::process {
namespace {

using std::chrono::milliseconds;

void waitUntilStopped(const std::vector<std::shared_ptr<ManagedProcess>>& processes,
                      milliseconds grace) {
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::none_of(processes.begin(), processes.end(),
                     [](const auto& p) { return p->running(); }))
      return;
    std::this_thread::sleep_for(milliseconds(10));
  }
}

}  // namespace

ProcessTable::ProcessTable(TableOptions options) : options_(options) {}

ProcessTable::~ProcessTable() { shutdown(); }

std::size_t ProcessTable::runningLocked() const {
  std::size_t n = reserved_;
  for (const auto& [pid, p] : processes_) n += p->running() ? 1 : 0;
  return n;
}

std::size_t ProcessTable::runningCount() const {
  std::lock_guard lock(mutex_);
  return runningLocked() - reserved_;
}

std::variant<std::shared_ptr<ManagedProcess>, sdk::HttpError> ProcessTable::start(
    sdk::SpawnOptions spawn, std::string command, std::string owner, std::size_t ring_bytes,
    std::optional<milliseconds> lifetime) {
  std::uint64_t sequence = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return sdk::HttpError{503, "The server is shutting down", "RuntimeError", {}};
    if (runningLocked() >= options_.max_running)
      return sdk::HttpError{
          429,
          "Too many background processes (limit " + std::to_string(options_.max_running) + ")",
          "ResourceError",
          {}};
    ++reserved_;
    sequence = next_sequence_++;
  }
  auto release = [&] {
    std::lock_guard lock(mutex_);
    --reserved_;
  };

  spawn.stdin_pipe = true;
  spawn.merge_stderr = true;
  auto child = sdk::Subprocess::spawn(spawn);
  if (!child) {
    release();
    return sdk::HttpError::fromStatus(500, child.status());
  }
  auto process =
      std::make_shared<ManagedProcess>(std::move(*child), std::move(command), std::move(owner),
                                       sequence, ring_bytes, lifetime, gate_);
  gate_->enter();
  try {
    std::thread([process, gate = gate_]() mutable {
      process->readLoop();
      process.reset();
      gate->leave();
    }).detach();
  } catch (...) {
    gate_->leave();
    release();
    return sdk::HttpError{500, "Cannot start a reader thread", "OSError", {}};
  }

  std::vector<std::shared_ptr<ManagedProcess>> evicted;
  {
    std::lock_guard lock(mutex_);
    --reserved_;
    if (closed_) {
      // shutdown() ran while this one was spawning and did not see it: it
      // must not outlive the server. Its reader reaps it.
      process->signal(SIGKILL);
      process->requestStop();
      return sdk::HttpError{503, "The server is shutting down", "RuntimeError", {}};
    }
    // A pid the kernel recycled replaces the record of its exited owner.
    if (auto it = processes_.find(process->pid()); it != processes_.end())
      evicted.push_back(std::move(it->second));
    processes_[process->pid()] = process;
    trimLocked(evicted);
    if (options_.started) options_.started->inc();
  }
  // An evicted record's reader may still drain pipes held open by what the
  // process left behind; it stops within one read slice.
  for (const auto& p : evicted) p->requestStop();
  return process;
}

std::shared_ptr<ManagedProcess> ProcessTable::find(pid_t pid) const {
  std::lock_guard lock(mutex_);
  auto it = processes_.find(pid);
  return it == processes_.end() ? nullptr : it->second;
}

void ProcessTable::trimLocked(std::vector<std::shared_ptr<ManagedProcess>>& evicted) {
  std::vector<std::shared_ptr<ManagedProcess>> exited;
  for (const auto& [pid, p] : processes_)
    if (!p->running()) exited.push_back(p);
  if (exited.size() <= options_.max_exited) return;
  std::sort(exited.begin(), exited.end(),
            [](const auto& a, const auto& b) { return a->sequence() < b->sequence(); });
  for (std::size_t i = 0; i + options_.max_exited < exited.size(); ++i) {
    processes_.erase(exited[i]->pid());
    evicted.push_back(exited[i]);
  }
}

std::vector<ProcessSnapshot> ProcessTable::list() {
  std::vector<ProcessSnapshot> out;
  std::vector<std::shared_ptr<ManagedProcess>> evicted;
  {
    std::lock_guard lock(mutex_);
    trimLocked(evicted);
    out.reserve(processes_.size());
    for (const auto& [pid, p] : processes_) out.push_back(p->snapshot());
  }
  for (const auto& p : evicted) p->requestStop();
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
  return out;
}

void ProcessTable::shutdown() noexcept {
  std::vector<std::shared_ptr<ManagedProcess>> all;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    closed_ = true;
    for (const auto& [pid, p] : processes_) all.push_back(p);
  }
  for (int sig : {SIGINT, SIGTERM}) {
    bool any = false;
    for (const auto& p : all) any = p->signal(sig) == SignalOutcome::sent || any;
    if (!any) break;
    waitUntilStopped(all, options_.shutdown_grace);
  }
  for (const auto& p : all) p->signal(SIGKILL);
  waitUntilStopped(all, milliseconds(2000));
  for (const auto& p : all) p->requestStop();
  // Bounded: a writer blocked on a pipe that something outside the group
  // holds open would otherwise hold up the server's exit.
  gate_->waitIdle(milliseconds(3000));
}

}  // namespace abx::plugins::process
