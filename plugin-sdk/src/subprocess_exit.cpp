// Subprocess's exit side: reaping, waiting, signals, the kill ladder, run().
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "abx/sdk/subprocess.h"
#include "owned_children.h"
#include "subprocess_support.h"

namespace abx::sdk {

using namespace subprocess_detail;

std::optional<int> Subprocess::tryReap(bool sweep) {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  if (sweep) {
    // Peek without reaping: while the leader is an unreaped zombie its pid,
    // and so the group id, cannot be reused, so the group kill cannot hit a
    // stranger.
    siginfo_t info{};
    int r;
    do {
      r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    } while (r < 0 && errno == EINTR);
    if (r == 0 && info.si_pid == 0) return std::nullopt;
    if (r == 0) ::kill(-pid_, SIGKILL);
  }
  int status = 0;
  const pid_t r = reapOwned(pid_, status, WNOHANG);
  if (r == 0) return std::nullopt;
  // ECHILD: someone else reaped it (SIGCHLD ignored); like Python, report 0.
  exit_code_ = r == pid_ ? decodeWaitStatus(status) : 0;
  if (pid_fd_ >= 0) ::close(std::exchange(pid_fd_, -1));
  return exit_code_;
}

std::optional<int> Subprocess::awaitExit(std::chrono::milliseconds timeout, bool sweep,
                                         std::size_t read_cap) {
  const auto deadline = deadlineAfter(timeout);
  milliseconds probe{1};
  while (true) {
    if (auto code = tryReap(sweep)) return code;
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return std::nullopt;
    auto wait = std::chrono::ceil<milliseconds>(left);
    if (pid_fd_ < 0) {
      wait = std::min(wait, probe);
      probe = std::min(probe * 2, kExitProbeInterval);
    }
    const bool reading =
        read_cap > 0 &&
        buffers_[0].size() - consumed_[0] + buffers_[1].size() - consumed_[1] < read_cap;
    pump(wait, nullptr, true, reading);
  }
}

std::optional<int> Subprocess::poll() { return tryReap(false); }

std::optional<int> Subprocess::waitFor(std::chrono::milliseconds timeout) {
  return awaitExit(timeout, false, 0);
}

int Subprocess::wait() {
  if (exit_code_ || pid_ <= 0) return exit_code_.value_or(-1);
  int status = 0;
  const pid_t r = reapOwned(pid_, status, 0);
  exit_code_ = r == pid_ ? decodeWaitStatus(status) : 0;
  if (pid_fd_ >= 0) ::close(std::exchange(pid_fd_, -1));
  return *exit_code_;
}

bool Subprocess::signalGroup(int sig) noexcept {
  if (pid_ <= 0 || exit_code_) return false;
  return ::kill(-pid_, sig) == 0;
}

int Subprocess::runLadder(const KillLadder& ladder, std::size_t read_cap) {
  if (exit_code_ || pid_ <= 0) return exit_code_.value_or(-1);
  const std::pair<int, milliseconds> steps[] = {{SIGINT, ladder.interrupt_grace},
                                                {SIGTERM, ladder.terminate_grace}};
  for (const auto& [sig, grace] : steps) {
    signalGroup(sig);
    if (auto code = awaitExit(grace, true, read_cap)) return *code;
  }
  signalGroup(SIGKILL);
  while (true) {
    if (auto code = awaitExit(std::chrono::hours(1), true, read_cap)) return *code;
  }
}

int Subprocess::terminate(const KillLadder& ladder) { return runLadder(ladder, kTerminateReadCap); }

Result<Completed> Subprocess::run(const SpawnOptions& options, const RunLimits& limits) {
  if (options.terminal)
    return Status::error("Subprocess::run: a terminal child has no output to collect",
                         "ValueError");
  Result<Subprocess> spawned = [&]() -> Result<Subprocess> {
    if (limits.stdin_data.empty() || options.stdin_pipe) return spawn(options);
    SpawnOptions with_stdin = options;
    with_stdin.stdin_pipe = true;
    return spawn(with_stdin);
  }();
  if (!spawned) return spawned.status();
  Subprocess& p = spawned.value();

  std::string_view feed = limits.stdin_data;
  if (feed.empty()) p.closeStdin();
  Completed done;
  std::size_t budget = limits.max_output_bytes;
  auto collect = [&] {
    for (int i = 0; i < 2; ++i) {
      if (!p.hasBuffered(i)) continue;
      std::string_view data(p.buffers_[i]);
      data.remove_prefix(p.consumed_[i]);
      const std::size_t take = std::min(data.size(), budget);
      (i == 0 ? done.out : done.err).append(data.substr(0, take));
      budget -= take;
      if (take < data.size()) done.truncated = true;
      p.consume(i, data.size());
    }
  };

  const auto deadline = deadlineAfter(limits.timeout);
  while (true) {
    // A one-shot command is over when its leader exits: whatever it left
    // running in its group is killed, or a stray background job holding the
    // pipes would stall run() until the timeout.
    p.tryReap(true);
    collect();
    if (done.truncated) break;
    if (p.exit_code_ && p.outputDone()) break;
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) {
      done.timed_out = true;
      break;
    }
    auto wait = std::chrono::ceil<milliseconds>(left);
    if (!p.exit_code_ && p.pid_fd_ < 0) wait = std::min(wait, kExitProbeInterval);
    p.pump(wait, &feed, !p.exit_code_, true);
  }

  p.closeStdin();
  if (done.truncated) {
    // Discarding from here on; a writing child now gets EPIPE and stops sooner.
    p.closeOutput();
  }
  // One byte over the budget is enough to notice truncation.
  const std::size_t ladder_read_cap = done.truncated ? 0 : std::min(budget, SIZE_MAX - 1) + 1;
  done.exit_code = p.runLadder(limits.ladder, ladder_read_cap);
  if (!done.truncated) {
    // The group is dead, so the pipes reach EOF at once, unless a process
    // that left the group still holds them: bounded, not until EOF.
    const auto drain_deadline = Clock::now() + milliseconds(200);
    collect();
    while (!done.truncated && !p.outputDone() && Clock::now() < drain_deadline) {
      p.pump(std::chrono::ceil<milliseconds>(drain_deadline - Clock::now()));
      collect();
    }
  }
  return done;
}

}  // namespace abx::sdk
