// Subprocess: the one way any part of the server starts a child process.
// posix_spawn in a new session and process group, an explicit environment
// (nothing inherited), pipes for stdin/stdout/stderr, poll-based reading,
// and a kill ladder on the whole group: SIGINT -> grace -> SIGTERM -> grace
// -> SIGKILL. With SpawnOptions::terminal the child gets a pseudo-terminal
// instead of the pipes (a shell for the terminal plugin).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

/** The window size of a child's pseudo-terminal (since 2.0). */
struct TerminalSize {
  int rows = 24;
  int cols = 80;
};

struct SpawnOptions {
  /** argv[0] without a '/' is looked up in the PATH of `env` (not the server's). */
  std::vector<std::string> argv;
  /** "NAME=value" entries: the child's whole environment. */
  std::vector<std::string> env;
  /** Working directory; empty keeps the server's. */
  std::string cwd;
  /** Send stderr into the stdout pipe (one ordered stream). */
  bool merge_stderr = false;
  /** false: the child's stdin is /dev/null. */
  bool stdin_pipe = true;
  /**
   * Since 2.0. Set: the child runs on a new pseudo-terminal of this size
   * instead of pipes (merge_stderr and stdin_pipe do not apply). It leads a
   * new session whose controlling terminal is the slave, on its stdin,
   * stdout and stderr; the terminal has IUTF8 and belongs to childUser()
   * when set. The server talks to it through terminalFd().
   */
  std::optional<TerminalSize> terminal;
};

/**
 * Since 2.3. Resource limits the child gets before its exec, given to
 * Subprocess::spawn next to SpawnOptions. A separate struct, not a new
 * SpawnOptions member: plugins build SpawnOptions, and a plugin compiled
 * against 2.2 hands the SDK a SpawnOptions without it (a minor version may
 * only add to structs the host creates).
 */
struct ProcessLimits {
  /**
   * RLIMIT_CPU: soft = cpu_seconds (the kernel sends SIGXCPU, which ends a
   * process that does not handle it), hard = cpu_seconds + kCpuKillGrace
   * (SIGKILL). The limit is per process and inherited: every process of the
   * child's tree gets its own budget of this many CPU seconds, counted from
   * its start. Zero or unset: no limit.
   */
  std::optional<unsigned> cpu_seconds;
  static constexpr unsigned kCpuKillGrace = 2;
};

/** Grace periods of the kill ladder; tests shorten them. */
struct KillLadder {
  std::chrono::milliseconds interrupt_grace{2000}; /**< after SIGINT */
  std::chrono::milliseconds terminate_grace{2000}; /**< after SIGTERM */
};

enum class OutputStream { out, err };

struct OutputLine {
  OutputStream stream = OutputStream::out;
  std::string text;     /**< without the trailing '\n' */
  bool partial = false; /**< cut at the line limit or at EOF without '\n' */
};

struct OutputChunk {
  OutputStream stream = OutputStream::out;
  std::string bytes;
};

/** The user every child runs as, when the server set one (since 1.3). */
struct ChildUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups; /**< supplementary groups */
  std::string home;
};

/** What Subprocess::run() collected. */
struct Completed {
  int exit_code = 0; /**< negative: killed by that signal (Python's convention) */
  std::string out;
  std::string err;
  bool timed_out = false;
  bool truncated = false; /**< output passed max_output_bytes and was cut */
};

struct RunLimits {
  std::chrono::milliseconds timeout{300000};
  std::size_t max_output_bytes = 16u << 20;
  std::string stdin_data;
  KillLadder ladder{};
};

/**
 * A running (or finished) child. Move-only. The destructor SIGKILLs the
 * group if the child still runs, and reaps it.
 * THREAD: one owner thread; writeStdin may run on a second thread.
 */
class ABX_SDK_API Subprocess {
 public:
  /**
   * Spawns; failures have type FileNotFoundError (no such program),
   * PermissionError or OSError. SpawnOptions::env is passed as given: build
   * it from the host's ChildEnvironment::snapshot(), which holds none of the
   * server's secrets, and filter additions with ChildEnvironment::isProtected.
   */
  static Result<Subprocess> spawn(const SpawnOptions& options);
  /** Since 2.3. spawn() with @p limits applied in the child before its exec
   *  (the child then starts with fork + exec rather than posix_spawn). */
  static Result<Subprocess> spawn(const SpawnOptions& options, const ProcessLimits& limits);
  /** Spawn, feed stdin, collect output under limits, and reap. Refuses
   *  SpawnOptions::terminal (ValueError): a terminal has no output to collect. */
  static Result<Completed> run(const SpawnOptions& options, const RunLimits& limits = {});

  /**
   * "NAME=value" for each listed name present in the server's environment.
   * Names starting with ABX_SERVER_ are never copied: the server's own
   * secrets do not reach children.
   */
  static std::vector<std::string> inheritEnv(std::initializer_list<std::string_view> names);

  /**
   * Since 1.3. From now on every child starts as @p user (its uid, gid and
   * supplementary groups) instead of the server's own user, with that
   * user's HOME, USER and LOGNAME (see childUserEnvironment). Only a server
   * running as root can do this; the server calls it at start-up for
   * --child-user. Fails (ValueError) for an unknown user or root itself.
   * An empty @p user: children run as the server's user again.
   */
  static Status setChildUser(std::string_view user);
  /** Since 1.3. The user children run as, if setChildUser() was called. */
  static std::optional<ChildUser> childUser();
  /**
   * Since 1.3. @p env as a child of childUser() gets it: HOME, USER and
   * LOGNAME that are missing or still the server's own become the child
   * user's (a HOME a plugin chose on purpose stays). Unchanged when children
   * run as the server's user.
   */
  static std::vector<std::string> childUserEnvironment(std::vector<std::string> env);
  /**
   * Since 1.3. Makes @p path (a file or directory the server created for a
   * child: a turn directory, a browser profile) owned by childUser(), so the
   * child can use it. A no-op when children run as the server's user.
   */
  static Status giveToChildUser(const std::string& path);
  /**
   * Since 2.1. For the kernel, which is a child subreaper: reaps every
   * exited child of this process that no Subprocess owns (the orphans its
   * children left), never one whose exit code a Subprocess will read. Does
   * not block. @return how many it reaped, or nullopt while a spawn was
   * under way (call again shortly). Plugins need not call it.
   */
  static std::optional<std::size_t> reapOrphans();

  Subprocess(Subprocess&&) noexcept;
  Subprocess& operator=(Subprocess&&) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();

  pid_t pid() const noexcept { return pid_; }
  /**
   * Since 2.0. The master side of the child's pseudo-terminal (non-blocking,
   * close-on-exec; read the child's output and write its input there), or
   * -1 without SpawnOptions::terminal. Owned by this object: never close it.
   */
  int terminalFd() const noexcept { return terminal_fd_; }
  /** Since 2.0. Sets the terminal's window size; the foreground group gets
   *  SIGWINCH. ValueError without SpawnOptions::terminal. */
  Status resizeTerminal(int rows, int cols);

  /** Writes all of @p data to stdin (blocking). Fails once stdin is closed. */
  Status writeStdin(std::string_view data);
  void closeStdin() noexcept;

  /**
   * The next complete line from stdout or stderr, whichever is ready, waiting
   * up to @p timeout. Lines longer than @p max_line come in parts.
   * @return nullopt on timeout or when both streams are at EOF (outputDone()).
   */
  std::optional<OutputLine> readLine(std::chrono::milliseconds timeout,
                                     std::size_t max_line = 1u << 20);
  /** The next raw bytes from either stream; nullopt as for readLine(). */
  std::optional<OutputChunk> readChunk(std::chrono::milliseconds timeout);
  /** Both output pipes reached EOF and every buffered byte was returned. */
  bool outputDone() const noexcept;

  /** Non-blocking: the exit code once the child was reaped. */
  std::optional<int> poll();
  /** Waits up to @p timeout for the child to exit. */
  std::optional<int> waitFor(std::chrono::milliseconds timeout);
  int wait();
  /** Sends @p sig to the whole process group; false if already reaped. */
  bool signalGroup(int sig) noexcept;
  /** Runs the kill ladder on the group until the child exits. @return exit code. */
  int terminate(const KillLadder& ladder = {});
  /**
   * The descriptors that become readable when output arrives or the child
   * exits (the open output pipes, and the pidfd when the kernel has one),
   * for one thread to watch many children with poll/epoll and then call
   * readLine / readChunk / poll with a zero timeout. Owned by this object:
   * never read or close them; the set shrinks as pipes reach EOF. Without
   * a pidfd the exit is noticed only by polling poll(). Since ABI 1.4.
   * A terminal child has no pipes: only the pidfd (its output comes on
   * terminalFd(), which the caller reads itself).
   */
  std::vector<int> readinessFds() const;

 private:
  Subprocess() = default;
  /**
   * One poll(): reads ready output pipes into buffers_, writes some of @p feed
   * to stdin, and with @p watch_exit also wakes when the child exits.
   */
  void pump(std::chrono::milliseconds timeout, std::string_view* feed = nullptr,
            bool watch_exit = false, bool read_output = true);
  bool hasBuffered(int index) const noexcept { return consumed_[index] < buffers_[index].size(); }
  std::optional<OutputLine> takeLine(int index, std::size_t max_line);
  void consume(int index, std::size_t n);
  /** Reaps if the child exited; with @p sweep the rest of the group is SIGKILLed first. */
  std::optional<int> tryReap(bool sweep);
  /** Blocks up to @p timeout for an exit, reading output meanwhile when @p read_cap > 0. */
  std::optional<int> awaitExit(std::chrono::milliseconds timeout, bool sweep, std::size_t read_cap);
  int runLadder(const KillLadder& ladder, std::size_t read_cap);
  void closeOutput() noexcept;
  void closeAll() noexcept;
  void killAndReap() noexcept;

  pid_t pid_ = -1;
  int pid_fd_ = -1; /**< pidfd when the kernel has one: poll()able exit notification */
  int stdin_fd_ = -1;
  int out_fds_[2] = {-1, -1};
  int terminal_fd_ = -1; /**< the pseudo-terminal's master (SpawnOptions::terminal) */
  std::string buffers_[2];
  std::size_t consumed_[2] = {0, 0};
  int next_stream_ = 0; /**< round-robin start, so a chatty stream cannot starve the other */
  std::optional<int> exit_code_;
};

}  // namespace abx::sdk
