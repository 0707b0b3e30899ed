#include "turn_process.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>
#include <thread>

namespace abx::plugins::agents {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kPollSlice{50};
// Prompts up to a pipe buffer are written inline; larger ones on a thread,
// so a CLI that prints before it reads stdin cannot deadlock the turn.
constexpr std::size_t kInlineStdin = 32u << 10;

class LineSplitter {
 public:
  LineSplitter(std::size_t max_line, const std::function<void(std::string_view)>& on_line)
      : max_line_(max_line), on_line_(on_line) {}

  void feed(std::string_view bytes) {
    while (!bytes.empty()) {
      auto nl = bytes.find('\n');
      auto piece = bytes.substr(0, nl);
      if (!skipping_) {
        auto room = max_line_ - std::min(max_line_, line_.size());
        line_.append(piece.substr(0, room));
        // Over the limit: the line is cut here and the rest up to its
        // newline dropped.
        if (piece.size() > room) {
          emit();
          skipping_ = true;
        }
      }
      if (nl == std::string_view::npos) return;
      if (!skipping_) emit();
      skipping_ = false;
      bytes.remove_prefix(nl + 1);
    }
  }
  void finish() {
    if (!line_.empty() && !skipping_) emit();
  }

 private:
  void emit() {
    std::string line;
    line.swap(line_);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    on_line_(line);
  }
  const std::size_t max_line_;
  const std::function<void(std::string_view)>& on_line_;
  std::string line_;
  bool skipping_ = false;
};

// A CLI that exited while its stdout stays open: something it started
// holds the pipe (a daemon in its own session, which the group kill misses).
// The turn waits this long after the exit for EOF, then stops waiting.
constexpr milliseconds kExitedHolderGrace{500};

// Whether the child has exited, without reaping it (while it is an
// unreaped zombie its group id stays reserved for the group kill).
bool exitedUnreaped(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// SIGKILLs every other process that holds one of @p fds' pipes: what the
// CLI left outside its group, found by the pipes' inodes in /proc/<pid>/fd.
// A process still running the server's own image is skipped: that is a
// sibling turn's fork before its exec, which briefly holds every fd.
void killPipeHolders(const std::vector<int>& fds) {
  std::set<std::string> pipes;
  for (const int fd : fds) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
      pipes.insert("pipe:[" + std::to_string(st.st_ino) + "]");
  }
  if (pipes.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto self_exe = fs::read_symlink("/proc/self/exe", ec);
  const std::string self = std::to_string(::getpid());
  for (const auto& proc : fs::directory_iterator("/proc", ec)) {
    const std::string pid = proc.path().filename();
    if (pid == self || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    bool holds = false;
    for (const auto& fd : fs::directory_iterator(proc.path() / "fd", ec))
      if (pipes.count(fs::read_symlink(fd.path(), ec).string())) holds = true;
    if (holds && fs::read_symlink(proc.path() / "exe", ec) != self_exe)
      ::kill(static_cast<pid_t>(std::stol(pid)), SIGKILL);
  }
}

// Notices a CLI that exited while its pipes stay open.
class HeldPipes {
 public:
  /** True once: kExitedHolderGrace after the CLI exited, its pipes still open. */
  bool due(pid_t pid) {
    if (done_) return false;
    if (!exited_at_ && exitedUnreaped(pid)) exited_at_ = Clock::now();
    done_ = exited_at_ && Clock::now() - *exited_at_ >= kExitedHolderGrace;
    return done_;
  }

 private:
  std::optional<Clock::time_point> exited_at_;
  bool done_ = false;
};

// Ends what keeps an exited CLI's pipes open, so they reach EOF: the rest of
// its group (the leader is still an unreaped zombie, so terminate() kills
// the group at once) and every other holder. @return the CLI's exit code.
int releaseHeldPipes(sdk::Subprocess& child, const sdk::KillLadder& ladder) {
  const int code = child.terminate(ladder);
  killPipeHolders(child.readinessFds());
  return code;
}

void appendTail(std::string& tail, std::string_view bytes, std::size_t cap) {
  tail.append(bytes);
  if (tail.size() > cap) tail.erase(0, tail.size() - cap);
}

}  // namespace

TurnProcessOutcome runTurnProcess(const sdk::SpawnOptions& spawn,
                                  const std::optional<std::string>& stdin_data,
                                  const TurnProcessLimits& limits, const std::atomic<bool>& cancel,
                                  const std::function<void(std::string_view)>& on_line) {
  TurnProcessOutcome outcome;
  sdk::SpawnOptions options = spawn;
  options.stdin_pipe = stdin_data.has_value();
  auto spawned = sdk::Subprocess::spawn(options, sdk::ProcessLimits{limits.cpu_seconds});
  if (!spawned) {
    outcome.stop = TurnStop::spawn_failed;
    outcome.spawn_error = spawned.status().message();
    outcome.spawn_error_type = spawned.status().type();
    return outcome;
  }
  sdk::Subprocess& child = *spawned;

  std::thread writer;
  if (stdin_data) {
    if (stdin_data->size() <= kInlineStdin) {
      (void)child.writeStdin(*stdin_data);  // a CLI that exits early closes its stdin
      child.closeStdin();
    } else {
      writer = std::thread([&child, &stdin_data] {
        (void)child.writeStdin(*stdin_data);
        child.closeStdin();
      });
    }
  }

  const auto started = Clock::now();
  auto last_output = started;
  std::uint64_t total = 0;
  LineSplitter lines(limits.max_line_bytes, on_line);

  auto stopReason = [&]() -> std::optional<TurnStop> {
    if (cancel.load(std::memory_order_relaxed)) return TurnStop::cancelled;
    const auto now = Clock::now();
    if (limits.turn_timeout && now - started >= *limits.turn_timeout) return TurnStop::turn_timeout;
    if (limits.idle_timeout && now - last_output >= *limits.idle_timeout)
      return TurnStop::idle_timeout;
    return std::nullopt;
  };
  auto slice = [&] {
    auto wait = kPollSlice;
    const auto now = Clock::now();
    if (limits.turn_timeout)
      wait = std::min(wait, std::chrono::duration_cast<milliseconds>(
                                started + *limits.turn_timeout - now + milliseconds(1)));
    if (limits.idle_timeout)
      wait = std::min(wait, std::chrono::duration_cast<milliseconds>(
                                last_output + *limits.idle_timeout - now + milliseconds(1)));
    return std::max(wait, milliseconds(0));
  };

  std::optional<TurnStop> stop;
  HeldPipes held;
  try {
    while (!stop) {
      if ((stop = stopReason())) break;
      if (held.due(child.pid())) outcome.exit_code = releaseHeldPipes(child, limits.ladder);
      auto chunk = child.readChunk(slice());
      if (!chunk) {
        if (child.outputDone()) break;
        continue;
      }
      last_output = Clock::now();
      total += chunk->bytes.size();
      if (chunk->stream == sdk::OutputStream::out)
        lines.feed(chunk->bytes);
      else
        appendTail(outcome.stderr_tail, chunk->bytes, limits.stderr_tail_bytes);
      if (limits.max_output_bytes && total > *limits.max_output_bytes)
        stop = TurnStop::output_limit;
    }
    if (!stop) {
      lines.finish();
      // Output ended; the CLI may still be running (or a child kept the
      // pipes and left): the deadlines still apply while we wait.
      while (true) {
        if (auto code = child.waitFor(kPollSlice)) {
          outcome.exit_code = *code;
          break;
        }
        if ((stop = stopReason())) break;
      }
    }
  } catch (const std::exception& e) {
    stop = TurnStop::line_rejected;
    outcome.handler_error = e.what();
  } catch (...) {
    stop = TurnStop::line_rejected;
    outcome.handler_error = "unknown exception";
  }
  if (stop) {
    outcome.stop = *stop;
    outcome.exit_code = child.terminate(limits.ladder);
  }
  if (writer.joinable()) writer.join();
  return outcome;
}

}  // namespace abx::plugins::agents
