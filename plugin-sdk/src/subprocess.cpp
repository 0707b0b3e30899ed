// Subprocess (see abx/sdk/subprocess.h): starting a child, its lifetime and
// its stdin, and the environment rules. Output is subprocess_output.cpp,
// exit and signals subprocess_exit.cpp, the pseudo-terminal
// subprocess_terminal.cpp; every Linux/glibc detail of a child process lives
// in these files.
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
#include <system_error>
#include <utility>

#include "fork_exec.h"
#include "owned_children.h"

extern char** environ;
#include "subprocess_support.h"

namespace abx::sdk {

using namespace subprocess_detail;

namespace subprocess_detail {

ExecVectors::ExecVectors(const SpawnOptions& options, const ProcessLimits& process_limits)
    : env(Subprocess::childUserEnvironment(options.env)), limits(process_limits) {
  argv.reserve(options.argv.size() + 1);
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  envp.reserve(env.size() + 1);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
}

Result<pid_t> startWithPipes(const std::string& program, const SpawnOptions& options,
                             const ExecVectors& exec, ParentEnds& ends) {
  UniqueFd in_r, out_w, err_w;
  if (options.stdin_pipe) {
    if (Status s = makePipe(in_r, ends.in_w); !s) return s;
  }
  if (Status s = makePipe(ends.out_r, out_w); !s) return s;
  if (!options.merge_stderr) {
    if (Status s = makePipe(ends.err_r, err_w); !s) return s;
  }
  const int err_fd = options.merge_stderr ? out_w.get() : err_w.get();
  // posix_spawn has no resource-limit attribute, and prlimit() after it
  // would race the child's own forks (children started before it would run
  // unlimited): a limited child is started with fork + exec like another
  // user's, its limits set between the two.
  auto user = Subprocess::childUser();
  if (user || exec.limits.cpu_seconds.value_or(0) > 0) {
    return detail::forkExec(user ? &*user : nullptr, program, exec.argv.data(), exec.envp.data(),
                            {in_r.get(), out_w.get(), err_fd}, options.cwd, exec.limits);
  }

  FileActions actions;
  posix_spawn_file_actions_t* fa = &actions.value;
  int rc = options.stdin_pipe ? posix_spawn_file_actions_adddup2(fa, in_r.get(), 0)
                              : posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(fa, out_w.get(), 1);
  if (rc == 0) rc = posix_spawn_file_actions_adddup2(fa, err_fd, 2);
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

  pid_t pid = -1;
  rc = ::posix_spawn(&pid, program.c_str(), fa, &attr.value, exec.argv.data(), exec.envp.data());
  if (rc == ENOENT) {
    return Status::error("No such file or directory: '" + options.argv[0] + "'",
                         "FileNotFoundError");
  }
  if (rc != 0) return errnoStatus("cannot start '" + options.argv[0] + "'", rc);
  return pid;
}

}  // namespace subprocess_detail

Result<Subprocess> Subprocess::spawn(const SpawnOptions& options) {
  return spawn(options, ProcessLimits{});
}

Result<Subprocess> Subprocess::spawn(const SpawnOptions& options, const ProcessLimits& limits) {
  if (options.argv.empty()) return Status::error("Subprocess: argv is empty", "ValueError");
  if (!options.cwd.empty()) {
    if (Status s = checkWorkingDirectory(options.cwd); !s) return s;
  }
  Result<std::string> program = resolveProgram(options);
  if (!program) return program.status();

  const ExecVectors exec(options, limits);
  ParentEnds ends;
  Result<pid_t> started = [&] {
    // Until the pid is registered the orphan reaper waits: a child that
    // exits at once would look like an orphan and lose its exit code.
    const auto spawning = holdForSpawn();
    Result<pid_t> pid = options.terminal ? startOnTerminal(*program, options, exec, ends)
                                         : startWithPipes(*program, options, exec, ends);
    if (pid) addOwned(*pid);
    return pid;
  }();
  if (!started) return started.status();

  Subprocess p;
  p.pid_ = *started;
  // Safe to open after the spawn: the pid cannot be reused before we reap it.
  p.pid_fd_ = static_cast<int>(::syscall(SYS_pidfd_open, p.pid_, 0));
  if (p.pid_fd_ < 0) p.pid_fd_ = -1;
  p.stdin_fd_ = ends.in_w.release();
  p.out_fds_[0] = ends.out_r.release();
  p.out_fds_[1] = ends.err_r.release();
  p.terminal_fd_ = ends.master.release();
  // Non-blocking so run() can interleave stdin and output in one poll loop
  // (and a terminal's reader can drain the master without blocking).
  for (int fd : {p.stdin_fd_, p.out_fds_[0], p.out_fds_[1], p.terminal_fd_}) {
    if (fd >= 0) setNonBlocking(fd);
  }
  return p;
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pid_fd_(std::exchange(other.pid_fd_, -1)),
      stdin_fd_(std::exchange(other.stdin_fd_, -1)),
      out_fds_{std::exchange(other.out_fds_[0], -1), std::exchange(other.out_fds_[1], -1)},
      terminal_fd_(std::exchange(other.terminal_fd_, -1)),
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
  terminal_fd_ = std::exchange(other.terminal_fd_, -1);
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
  const pid_t r = reapOwned(pid_, status, 0);
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
  if (terminal_fd_ >= 0) ::close(std::exchange(terminal_fd_, -1));
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

std::vector<std::string> Subprocess::inheritEnv(std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  for (std::string_view name : names) {
    if (name.empty() || name.find('=') != std::string_view::npos) continue;
    if (name.starts_with("ABX_SERVER_")) continue;
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
