// The pieces of Subprocess that its files share (subprocess*.cpp): errno
// statuses, deadlines, pipes, the SIGPIPE guard, program lookup in the
// child's PATH, posix_spawn wrappers and the two ways a child starts (pipes
// or a pseudo-terminal). Private to the SDK.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace abx::sdk::subprocess_detail {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr std::size_t kReadSize = 64 * 1024;
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";
// terminate() keeps draining the pipes while it waits, so a child that flushes
// output on SIGINT does not block on a full pipe until SIGKILL; this bounds
// how much it may buffer that way.
constexpr std::size_t kTerminateReadCap = 8u << 20;
// Without a pidfd there is no fd that signals an exit, so waits fall back to
// short sleeps between waitpid() probes.
constexpr milliseconds kExitProbeInterval{5};

Status errnoStatus(const std::string& what, int err);
/** Python's convention: a signal death is reported as -signal. */
int decodeWaitStatus(int status);
Clock::time_point deadlineAfter(milliseconds timeout);
/** Rounded up, so the last sub-millisecond is not a busy loop. */
int toPollMs(Clock::duration d);
void setNonBlocking(int fd);
std::optional<std::string_view> envValue(const std::vector<std::string>& env,
                                         std::string_view name);
/** argv[0] found in the child's PATH (not the server's), made absolute. */
Result<std::string> resolveProgram(const SpawnOptions& options);
Status checkWorkingDirectory(const std::string& cwd);
/** @p cut moved back to a UTF-8 lead byte unless that leaves nothing. */
std::size_t lineSafeCut(std::string_view text, std::size_t cut);

class UniqueFd {
 public:
  UniqueFd() = default;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Pipes have no MSG_NOSIGNAL, and a library must not change the process's
// SIGPIPE disposition: block it on this thread for the write and swallow the
// one the write raised (SIGPIPE from write() is thread-directed).
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock() {
    const int saved_errno = errno;
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (sigtimedwait(&set_, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    errno = saved_errno;
  }

 private:
  sigset_t set_;
  sigset_t old_;
  bool was_pending_ = false;
};

struct FileActions {
  posix_spawn_file_actions_t value;
  FileActions() { posix_spawn_file_actions_init(&value); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  ~FileActions() { posix_spawn_file_actions_destroy(&value); }
};

struct SpawnAttr {
  posix_spawnattr_t value;
  SpawnAttr() { posix_spawnattr_init(&value); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
  ~SpawnAttr() { posix_spawnattr_destroy(&value); }
};

Status makePipe(UniqueFd& read_end, UniqueFd& write_end);
/** Moves @p fd above 0..2 (close-on-exec), where a child's dup2 onto 0..2 cannot clobber it. */
Status keepAboveStdio(UniqueFd& fd);

/** The argv and envp arrays exec takes, pointing into the options and `env`. */
struct ExecVectors {
  ExecVectors(const SpawnOptions& options, const ProcessLimits& limits);
  std::vector<std::string> env; /**< SpawnOptions::env as the child user gets it */
  std::vector<char*> argv;
  std::vector<char*> envp;
  ProcessLimits limits; /**< applied in the child before exec */
};

/** The server's ends of a new child's stdio: pipes, or a terminal's master. */
struct ParentEnds {
  UniqueFd in_w, out_r, err_r;
  UniqueFd master;
};

/** Starts the child on pipes (posix_spawn; fork + exec for a child user). */
Result<pid_t> startWithPipes(const std::string& program, const SpawnOptions& options,
                             const ExecVectors& exec, ParentEnds& ends);
/** Starts the child on a new pseudo-terminal (SpawnOptions::terminal). */
Result<pid_t> startOnTerminal(const std::string& program, const SpawnOptions& options,
                              const ExecVectors& exec, ParentEnds& ends);

}  // namespace abx::sdk::subprocess_detail
