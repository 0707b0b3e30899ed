#include "managed_process.h"

#include <signal.h>

#include <thread>

#include "exit_watch.h"

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The reader wakes at least this often (lifetime limit, stop requests, a
// leader that exited while others keep its pipes open).
constexpr milliseconds kReadSlice{250};
constexpr milliseconds kKillAfterTerm{2000};

double epochSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

ManagedProcess::ManagedProcess(sdk::Subprocess child, std::string command, std::string owner,
                               std::uint64_t sequence, std::size_t ring_bytes,
                               std::optional<milliseconds> lifetime,
                               std::shared_ptr<ThreadGate> gate)
    : child_(std::move(child)),
      pid_(child_.pid()),
      command_(std::move(command)),
      owner_(std::move(owner)),
      sequence_(sequence),
      started_at_(epochSeconds()),
      started_(Clock::now()),
      lifetime_(lifetime),
      gate_(std::move(gate)),
      ring_(ring_bytes) {}

ProcessSnapshot ManagedProcess::snapshot() const {
  std::lock_guard lock(mutex_);
  return ProcessSnapshot{pid_, command_, owner_, started_at_, running_, exit_code_, sequence_};
}

bool ManagedProcess::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

bool ManagedProcess::finished() const {
  std::lock_guard lock(mutex_);
  return finished_;
}

SignalOutcome ManagedProcess::signal(int sig) {
  std::lock_guard lock(mutex_);
  if (!running_) return SignalOutcome::exited;
  // Not reaped yet (reaping takes this lock), so the group id is still ours.
  return child_.signalGroup(sig) ? SignalOutcome::sent : SignalOutcome::failed;
}

OutputRead ManagedProcess::output(std::uint64_t after, std::size_t max_bytes) const {
  std::lock_guard lock(mutex_);
  OutputRead read;
  read.slice = ring_.read(after, max_bytes);
  read.end = ring_.end();
  read.running = running_;
  read.exit_code = exit_code_;
  read.eof = finished_ && !running_;
  return read;
}

StdinOutcome ManagedProcess::writeStdin(std::string data, bool close) {
  if (!running()) return StdinOutcome::exited;
  std::lock_guard lock(stdin_mutex_);
  if (abandoned_) return StdinOutcome::exited;
  if (stdin_closed_ || close_requested_) return StdinOutcome::closed;
  if (data.size() > kMaxPendingStdin - pending_) return StdinOutcome::full;
  pending_ += data.size();
  if (!data.empty()) queue_.push_back(std::move(data));
  if (close) close_requested_ = true;
  if (!writer_started_) startWriterLocked();
  stdin_cv_.notify_all();
  return StdinOutcome::accepted;
}

void ManagedProcess::startWriterLocked() {
  auto self = shared_from_this();
  auto gate = gate_;
  gate->enter();
  try {
    std::thread([self, gate]() mutable {
      self->writeLoop();
      self.reset();
      gate->leave();
    }).detach();
    writer_started_ = true;
  } catch (...) {
    gate->leave();
    // No thread: what is queued cannot be written.
    queue_.clear();
    pending_ = 0;
    stdin_closed_ = true;
  }
}

void ManagedProcess::writeLoop() {
  while (true) {
    std::string data;
    bool close_now = false;
    {
      std::unique_lock lock(stdin_mutex_);
      stdin_cv_.wait(lock, [&] { return !queue_.empty() || close_requested_ || abandoned_; });
      if (abandoned_) {
        queue_.clear();
        pending_ = 0;
        close_now = true;
      } else if (!queue_.empty()) {
        data = std::move(queue_.front());
        queue_.pop_front();
      } else {
        close_now = true;  // close requested and everything before it written
      }
    }
    if (!data.empty()) {
      const sdk::Status written = child_.writeStdin(data);
      std::lock_guard lock(stdin_mutex_);
      pending_ -= std::min(pending_, data.size());
      if (!written) {
        // The child closed its stdin or exited: nothing more can be delivered.
        queue_.clear();
        pending_ = 0;
        close_now = true;
      }
    }
    if (close_now) {
      child_.closeStdin();
      std::lock_guard lock(stdin_mutex_);
      stdin_closed_ = true;
      return;
    }
  }
}

void ManagedProcess::requestStop() { stop_.store(true); }

void ManagedProcess::enforceLifetime(bool running) {
  if (!running || !lifetime_) return;
  const auto now = Clock::now();
  if (now - started_ < *lifetime_) return;
  std::lock_guard lock(mutex_);
  if (!running_) return;
  if (!term_sent_) {
    term_sent_ = now;
    child_.signalGroup(SIGTERM);
  } else if (!kill_sent_ && now - *term_sent_ >= kKillAfterTerm) {
    kill_sent_ = true;
    child_.signalGroup(SIGKILL);
  }
}

void ManagedProcess::readLoop() {
  const ExitWatch watch(pid_);
  bool running = true;
  while (true) {
    if (!child_.outputDone()) {
      if (auto chunk = child_.readChunk(kReadSlice)) {
        std::lock_guard lock(mutex_);
        ring_.append(chunk->bytes);
      }
    } else if (running) {
      watch.wait(kReadSlice);
    }
    if (running) {
      {
        std::lock_guard lock(mutex_);
        if (auto code = child_.poll()) {
          exit_code_ = *code;
          running_ = running = false;
        }
      }
      if (!running) {
        // Nothing queued for stdin can be delivered any more.
        {
          std::lock_guard lock(stdin_mutex_);
          abandoned_ = true;
        }
        stdin_cv_.notify_all();
      }
    }
    if (!running && (child_.outputDone() || stop_.load())) break;
    enforceLifetime(running);
  }
  std::lock_guard lock(mutex_);
  finished_ = true;
}

}  // namespace abx::plugins::process
