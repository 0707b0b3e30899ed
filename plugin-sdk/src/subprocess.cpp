// Subprocess (see abx/sdk/subprocess.h): every Linux/glibc detail of starting,
// feeding, reading, signalling and reaping a child process lives here.
#include "abx/sdk/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <system_error>
#include <utility>

#include "fork_exec.h"

extern char** environ;

namespace abx::sdk {
namespace {

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

std::string errnoMessage(int err) {
  return std::error_code(err, std::generic_category()).message();
}

const char* errnoType(int err) {
  switch (err) {
    case ENOENT:
      return "FileNotFoundError";
    case EACCES:
    case EPERM:
      return "PermissionError";
    case ENOTDIR:
      return "NotADirectoryError";
    case EISDIR:
      return "IsADirectoryError";
    case EPIPE:
      return "BrokenPipeError";
    default:
      return "OSError";
  }
}

Status errnoStatus(const std::string& what, int err) {
  return Status::error(what + ": " + errnoMessage(err), errnoType(err));
}

// Python's convention: a signal death is reported as -signal.
int decodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

Clock::time_point deadlineAfter(milliseconds timeout) {
  // milliseconds::max() would overflow steady_clock's nanoseconds.
  constexpr milliseconds kLongest = std::chrono::hours(24 * 365 * 10);
  return Clock::now() + std::clamp(timeout, milliseconds{0}, kLongest);
}

int toPollMs(Clock::duration d) {
  if (d <= Clock::duration::zero()) return 0;
  // Rounding up: rounding down would turn the last sub-millisecond into a busy loop.
  const auto ms = std::chrono::ceil<milliseconds>(d).count();
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

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

Status makePipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errnoStatus("pipe2", errno);
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  // A pipe end numbered 0..2 (the server closed its stdio) would be clobbered
  // by the child's dup2 onto 0..2, or dup2'd onto itself and keep CLOEXEC.
  for (UniqueFd* end : {&read_end, &write_end}) {
    if (end->get() > 2) continue;
    const int moved = ::fcntl(end->get(), F_DUPFD_CLOEXEC, 3);
    if (moved < 0) return errnoStatus("fcntl(F_DUPFD_CLOEXEC)", errno);
    end->reset(moved);
  }
  return Status::ok();
}

void setNonBlocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

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

std::optional<std::string_view> envValue(const std::vector<std::string>& env,
                                         std::string_view name) {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return std::string_view(entry).substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string currentDirectory() {
  std::string buf(PATH_MAX, '\0');
  if (::getcwd(buf.data(), buf.size()) == nullptr) return ".";
  buf.resize(std::char_traits<char>::length(buf.data()));
  return buf;
}

// The child's PATH, not the server's: the server's environment never reaches
// children, so its PATH must not decide what they run either.
Result<std::string> resolveProgram(const SpawnOptions& options) {
  const std::string& name = options.argv[0];
  if (name.empty()) return Status::error("Subprocess: argv[0] is empty", "ValueError");
  // With a '/', exec resolves it after the chdir, like a shell's `cd dir && ./x`.
  if (name.find('/') != std::string::npos) return name;
  const std::string_view path = envValue(options.env, "PATH").value_or(kDefaultPath);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    std::string dir(path.substr(start, end - start));
    start = end + 1;
    if (dir.empty()) dir = ".";  // POSIX: an empty element is the current directory
    std::string candidate = dir + "/" + name;
    if (candidate.front() != '/') {
      // Relative PATH elements mean the child's cwd; make the result absolute
      // so it still names the same file after the chdir.
      std::string base = options.cwd.empty() ? currentDirectory() : options.cwd;
      if (base.front() != '/') base = currentDirectory() + "/" + base;
      candidate = base + "/" + candidate;
    }
    if (isExecutableFile(candidate)) return candidate;
  }
  return Status::error(
      "No such file or directory: '" + name + "' (searched PATH=" + std::string(path) + ")",
      "FileNotFoundError");
}

Status checkWorkingDirectory(const std::string& cwd) {
  struct stat st {};
  if (::stat(cwd.c_str(), &st) != 0) return errnoStatus("working directory '" + cwd + "'", errno);
  if (!S_ISDIR(st.st_mode)) {
    return Status::error("Not a directory: working directory '" + cwd + "'", "NotADirectoryError");
  }
  if (::access(cwd.c_str(), X_OK) != 0) {
    return errnoStatus("working directory '" + cwd + "'", errno);
  }
  return Status::ok();
}

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

// Cutting inside a UTF-8 sequence would hand consumers invalid text; back off
// to the sequence's lead byte unless that leaves nothing.
std::size_t utf8SafeCut(std::string_view text, std::size_t cut) {
  std::size_t c = cut;
  for (int i = 0;
       i < 3 && c > 0 && c < text.size() && (static_cast<unsigned char>(text[c]) & 0xC0) == 0x80;
       ++i) {
    --c;
  }
  return c == 0 ? cut : c;
}

}  // namespace

Result<Subprocess> Subprocess::spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Status::error("Subprocess: argv is empty", "ValueError");
  if (!options.cwd.empty()) {
    if (Status s = checkWorkingDirectory(options.cwd); !s) return s;
  }
  Result<std::string> program = resolveProgram(options);
  if (!program) return program.status();

  UniqueFd in_r, in_w, out_r, out_w, err_r, err_w;
  if (options.stdin_pipe) {
    if (Status s = makePipe(in_r, in_w); !s) return s;
  }
  if (Status s = makePipe(out_r, out_w); !s) return s;
  if (!options.merge_stderr) {
    if (Status s = makePipe(err_r, err_w); !s) return s;
  }

  FileActions actions;
  posix_spawn_file_actions_t* fa = &actions.value;
  int rc = options.stdin_pipe ? posix_spawn_file_actions_adddup2(fa, in_r.get(), 0)
                              : posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(fa, out_w.get(), 1);
  if (rc == 0) {
    rc = posix_spawn_file_actions_adddup2(fa, options.merge_stderr ? out_w.get() : err_w.get(), 2);
  }
  if (rc == 0 && !options.cwd.empty()) {
    rc = posix_spawn_file_actions_addchdir_np(fa, options.cwd.c_str());
  }
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
  // Our own fds are CLOEXEC, but fds opened by libraries in the server may not be.
  if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(fa, 3);
#endif
  if (rc != 0) return errnoStatus("posix_spawn_file_actions", rc);

  SpawnAttr attr;
  sigset_t none;
  sigemptyset(&none);
  sigset_t all;
  sigfillset(&all);
#if defined(__GLIBC__)
  // sigfillset leaves out glibc's internal signals (32, 33), and glibc's spawn
  // then sets them to SIG_IGN in the child, which exec keeps. Naming every bit
  // resets them too; nothing can send them to the child before its exec.
  std::memset(&all, 0xFF, sizeof all);
#endif
  // Own session: the kill ladder can address the whole group and the child
  // has no controlling terminal. Signal state is reset because ignored
  // signals (the server ignores SIGPIPE) and the mask survive exec.
  rc = posix_spawnattr_setflags(
      &attr.value, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&attr.value, &none);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr.value, &all);
  if (rc != 0) return errnoStatus("posix_spawnattr", rc);

  std::vector<char*> argv;
  argv.reserve(options.argv.size() + 1);
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  const std::vector<std::string> env = childUserEnvironment(options.env);
  envp.reserve(env.size() + 1);
  for (const std::string& e : env) {
    // The server's own secrets never reach a child, whoever built the list.
    if (isProtectedEnvName(std::string_view(e).substr(0, e.find('=')))) continue;
    envp.push_back(const_cast<char*>(e.c_str()));
  }
  envp.push_back(nullptr);

  pid_t pid = -1;
  if (auto user = childUser()) {
    detail::ChildFds fds{in_r.get(), out_w.get(), options.merge_stderr ? out_w.get() : err_w.get()};
    auto started =
        detail::forkExec(&*user, program.value(), argv.data(), envp.data(), fds, options.cwd);
    if (!started) return started.status();
    pid = *started;
  } else {
    rc = ::posix_spawn(&pid, program.value().c_str(), fa, &attr.value, argv.data(), envp.data());
  }
  if (rc != 0) {
    if (rc == ENOENT) {
      return Status::error("No such file or directory: '" + options.argv[0] + "'",
                           "FileNotFoundError");
    }
    return errnoStatus("cannot start '" + options.argv[0] + "'", rc);
  }

  Subprocess p;
  p.pid_ = pid;
  // Safe to open after the spawn: the pid cannot be reused before we reap it.
  p.pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (p.pid_fd_ < 0) p.pid_fd_ = -1;
  p.stdin_fd_ = in_w.release();
  p.out_fds_[0] = out_r.release();
  p.out_fds_[1] = err_r.release();
  // Non-blocking so run() can interleave stdin and output in one poll loop.
  for (int fd : {p.stdin_fd_, p.out_fds_[0], p.out_fds_[1]}) {
    if (fd >= 0) setNonBlocking(fd);
  }
  return p;
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pid_fd_(std::exchange(other.pid_fd_, -1)),
      stdin_fd_(std::exchange(other.stdin_fd_, -1)),
      out_fds_{std::exchange(other.out_fds_[0], -1), std::exchange(other.out_fds_[1], -1)},
      buffers_{std::move(other.buffers_[0]), std::move(other.buffers_[1])},
      consumed_{std::exchange(other.consumed_[0], 0), std::exchange(other.consumed_[1], 0)},
      next_stream_(other.next_stream_),
      exit_code_(std::exchange(other.exit_code_, std::nullopt)) {
  other.buffers_[0].clear();
  other.buffers_[1].clear();
}

Subprocess& Subprocess::operator=(Subprocess&& other) noexcept {
  if (this == &other) return *this;
  killAndReap();
  closeAll();
  pid_ = std::exchange(other.pid_, -1);
  pid_fd_ = std::exchange(other.pid_fd_, -1);
  stdin_fd_ = std::exchange(other.stdin_fd_, -1);
  for (int i = 0; i < 2; ++i) {
    out_fds_[i] = std::exchange(other.out_fds_[i], -1);
    buffers_[i] = std::move(other.buffers_[i]);
    other.buffers_[i].clear();
    consumed_[i] = std::exchange(other.consumed_[i], 0);
  }
  next_stream_ = other.next_stream_;
  exit_code_ = std::exchange(other.exit_code_, std::nullopt);
  return *this;
}

Subprocess::~Subprocess() {
  killAndReap();
  closeAll();
}

void Subprocess::killAndReap() noexcept {
  if (pid_ <= 0 || exit_code_) return;
  if (::kill(-pid_, SIGKILL) != 0) ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  exit_code_ = r == pid_ ? decodeWaitStatus(status) : -SIGKILL;
}

void Subprocess::closeStdin() noexcept {
  if (stdin_fd_ >= 0) ::close(std::exchange(stdin_fd_, -1));
}

void Subprocess::closeOutput() noexcept {
  for (int i = 0; i < 2; ++i) {
    if (out_fds_[i] >= 0) ::close(std::exchange(out_fds_[i], -1));
    buffers_[i].clear();
    consumed_[i] = 0;
  }
}

void Subprocess::closeAll() noexcept {
  closeStdin();
  closeOutput();
  if (pid_fd_ >= 0) ::close(std::exchange(pid_fd_, -1));
}

Status Subprocess::writeStdin(std::string_view data) {
  if (stdin_fd_ < 0) return Status::error("write to child stdin: stdin is closed", "ValueError");
  SigpipeBlock no_sigpipe;
  while (!data.empty()) {
    const ssize_t n = ::write(stdin_fd_, data.data(), data.size());
    if (n >= 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    const int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN) {
      // The fd is non-blocking for run()'s sake; this call is documented as blocking.
      pollfd p{stdin_fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    return errnoStatus("write to child stdin", err);
  }
  return Status::ok();
}

void Subprocess::consume(int index, std::size_t n) {
  consumed_[index] += n;
  std::string& buf = buffers_[index];
  if (consumed_[index] >= buf.size()) {
    buf.clear();
    consumed_[index] = 0;
  } else if (consumed_[index] >= kReadSize && consumed_[index] * 2 >= buf.size()) {
    // Compact now and then rather than per line: erasing the front per line
    // would be quadratic in a buffer full of short lines.
    buf.erase(0, consumed_[index]);
    consumed_[index] = 0;
  }
}

void Subprocess::pump(std::chrono::milliseconds timeout, std::string_view* feed, bool watch_exit,
                      bool read_output) {
  pollfd fds[4];
  int stream_of[4] = {-1, -1, -1, -1};
  nfds_t n = 0;
  int stdin_slot = -1;
  if (read_output) {
    for (int i = 0; i < 2; ++i) {
      if (out_fds_[i] < 0) continue;
      stream_of[n] = i;
      fds[n++] = {out_fds_[i], POLLIN, 0};
    }
  }
  if (feed != nullptr && !feed->empty() && stdin_fd_ >= 0) {
    stdin_slot = static_cast<int>(n);
    fds[n++] = {stdin_fd_, POLLOUT, 0};
  }
  if (watch_exit && pid_fd_ >= 0 && !exit_code_) fds[n++] = {pid_fd_, POLLIN, 0};

  // EINTR just returns early: every caller loops on its own deadline.
  if (::poll(n > 0 ? fds : nullptr, n, toPollMs(timeout)) <= 0) return;

  for (nfds_t k = 0; k < n; ++k) {
    if (fds[k].revents == 0) continue;
    if (stream_of[k] >= 0) {
      const int i = stream_of[k];
      std::string& buf = buffers_[i];
      const std::size_t old = buf.size();
      buf.resize(old + kReadSize);
      ssize_t got;
      do {
        got = ::read(out_fds_[i], buf.data() + old, kReadSize);
      } while (got < 0 && errno == EINTR);
      buf.resize(old + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
      if (got == 0 || (got < 0 && errno != EAGAIN)) ::close(std::exchange(out_fds_[i], -1));
    } else if (static_cast<int>(k) == stdin_slot) {
      SigpipeBlock no_sigpipe;
      const ssize_t put = ::write(stdin_fd_, feed->data(), feed->size());
      if (put > 0) {
        feed->remove_prefix(static_cast<std::size_t>(put));
      } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
        // The child closed its stdin (or died): what it did not read is dropped.
        *feed = {};
      }
      if (feed->empty()) closeStdin();
    }
  }
}

std::optional<OutputLine> Subprocess::takeLine(int index, std::size_t max_line) {
  if (!hasBuffered(index)) return std::nullopt;
  std::string_view view(buffers_[index]);
  view.remove_prefix(consumed_[index]);
  OutputLine line;
  line.stream = index == 0 ? OutputStream::out : OutputStream::err;
  const std::size_t nl = view.substr(0, max_line + 1).find('\n');
  if (nl != std::string_view::npos) {
    line.text.assign(view.substr(0, nl));
    consume(index, nl + 1);
    return line;
  }
  if (view.size() > max_line) {
    const std::size_t cut = utf8SafeCut(view, max_line);
    line.text.assign(view.substr(0, cut));
    line.partial = true;
    consume(index, cut);
    return line;
  }
  if (out_fds_[index] < 0) {
    line.text.assign(view);
    line.partial = true;
    consume(index, view.size());
    return line;
  }
  return std::nullopt;
}

std::optional<OutputLine> Subprocess::readLine(std::chrono::milliseconds timeout,
                                               std::size_t max_line) {
  max_line = std::clamp<std::size_t>(max_line, 1, SIZE_MAX - 1);
  const auto deadline = deadlineAfter(timeout);
  for (bool first = true;; first = false) {
    for (int k = 0; k < 2; ++k) {
      const int i = (next_stream_ + k) % 2;
      if (auto line = takeLine(i, max_line)) {
        next_stream_ = 1 - i;
        return line;
      }
    }
    // takeLine hands out the unterminated rest of a stream at EOF, so here
    // both closed means both drained.
    if (out_fds_[0] < 0 && out_fds_[1] < 0) return std::nullopt;
    const auto left = deadline - Clock::now();
    if (!first && left <= Clock::duration::zero()) return std::nullopt;
    pump(std::chrono::ceil<milliseconds>(std::max(left, Clock::duration::zero())));
  }
}

std::optional<OutputChunk> Subprocess::readChunk(std::chrono::milliseconds timeout) {
  const auto deadline = deadlineAfter(timeout);
  for (bool first = true;; first = false) {
    for (int k = 0; k < 2; ++k) {
      const int i = (next_stream_ + k) % 2;
      if (!hasBuffered(i)) continue;
      OutputChunk chunk;
      chunk.stream = i == 0 ? OutputStream::out : OutputStream::err;
      chunk.bytes.assign(buffers_[i], consumed_[i]);
      consume(i, chunk.bytes.size());
      next_stream_ = 1 - i;
      return chunk;
    }
    if (out_fds_[0] < 0 && out_fds_[1] < 0) return std::nullopt;
    const auto left = deadline - Clock::now();
    if (!first && left <= Clock::duration::zero()) return std::nullopt;
    pump(std::chrono::ceil<milliseconds>(std::max(left, Clock::duration::zero())));
  }
}

bool Subprocess::outputDone() const noexcept {
  return out_fds_[0] < 0 && out_fds_[1] < 0 && !hasBuffered(0) && !hasBuffered(1);
}

std::vector<int> Subprocess::readinessFds() const {
  std::vector<int> fds;
  for (int fd : out_fds_)
    if (fd >= 0) fds.push_back(fd);
  if (pid_fd_ >= 0 && !exit_code_) fds.push_back(pid_fd_);
  return fds;
}

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
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
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
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
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

namespace {
std::mutex protected_mutex;
// Null until the host turns protection on.
std::shared_ptr<const std::vector<std::string>> protected_names;
}  // namespace

void Subprocess::protectEnvironment(std::vector<std::string> names) {
  auto next = std::make_shared<const std::vector<std::string>>(std::move(names));
  std::lock_guard lock(protected_mutex);
  protected_names = std::move(next);
}

bool Subprocess::isProtectedEnvName(std::string_view name) {
  std::shared_ptr<const std::vector<std::string>> names;
  {
    std::lock_guard lock(protected_mutex);
    names = protected_names;
  }
  if (!names) return false;
  if (name.starts_with("ABX_SERVER_")) return true;
  return std::find(names->begin(), names->end(), name) != names->end();
}

std::vector<std::string> Subprocess::inheritEnv(std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  for (std::string_view name : names) {
    if (name.empty() || name.find('=') != std::string_view::npos) continue;
    if (name.starts_with("ABX_SERVER_") || isProtectedEnvName(name)) continue;
    const bool seen = std::any_of(out.begin(), out.end(), [&](const std::string& e) {
      return e.compare(0, name.size(), name) == 0 && e[name.size()] == '=';
    });
    if (seen) continue;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string_view entry(*e);
      if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
        out.emplace_back(entry);
        break;
      }
    }
  }
  return out;
}

}  // namespace abx::sdk
