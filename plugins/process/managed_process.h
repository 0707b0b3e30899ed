// ManagedProcess: one background process of POST /process/start. A reader
// thread copies its output (stdout and stderr merged in one pipe, so in the
// order written) into an OutputRing and reaps it as soon as it exits; a
// writer thread, started by the first stdin request, feeds queued input to
// it. Reaping and signalling share one lock, so a signal never reaches a pid
// the kernel handed to someone else.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "abx/sdk/subprocess.h"
#include "output_ring.h"
#include "thread_gate.h"

namespace abx::plugins::process {

/** What GET /process/list and /process/{pid} show. */
struct ProcessSnapshot {
  pid_t pid = 0;
  std::string command;
  std::string owner;     /**< the identity that started it */
  double started_at = 0; /**< seconds since the epoch */
  bool running = true;
  std::optional<int> exit_code;
  std::uint64_t sequence = 0; /**< start order */
};

/** A ring read plus the process's state at that moment. */
struct OutputRead {
  OutputRing::Slice slice;
  std::uint64_t end = 0; /**< offset after the newest byte */
  bool running = true;
  std::optional<int> exit_code;
  bool eof = false; /**< exited and every byte of output is in the ring (not yet in the slice
                         when max_bytes cut it: see slice.next) */
};

enum class SignalOutcome { sent, exited, failed };
enum class StdinOutcome { accepted, exited, closed, full };

/** Bytes of stdin queued and not yet written, per process. */
inline constexpr std::size_t kMaxPendingStdin = 1u << 20;

/** THREAD: safe. Created by ProcessTable, which starts its reader. */
class ManagedProcess : public std::enable_shared_from_this<ManagedProcess> {
 public:
  /**
   * @p child was spawned with stdin_pipe and merge_stderr. @p lifetime, when
   * set, is how long it may run before SIGTERM (then SIGKILL 2 s later).
   * @p owner is the identity that started it (process_owner.h).
   */
  ManagedProcess(sdk::Subprocess child, std::string command, std::string owner,
                 std::uint64_t sequence, std::size_t ring_bytes,
                 std::optional<std::chrono::milliseconds> lifetime,
                 std::shared_ptr<ThreadGate> gate);
  ManagedProcess(const ManagedProcess&) = delete;
  ManagedProcess& operator=(const ManagedProcess&) = delete;

  pid_t pid() const { return pid_; }
  std::uint64_t sequence() const { return sequence_; }
  const std::string& owner() const { return owner_; }
  ProcessSnapshot snapshot() const;
  bool running() const;
  /** The reader is done: exited, output at EOF (or the reader was stopped). */
  bool finished() const;

  /** Sends @p sig to the process group, unless it was reaped already. */
  SignalOutcome signal(int sig);
  /** At most @p max_bytes of the output after offset @p after (clamped to the end). */
  OutputRead output(std::uint64_t after, std::size_t max_bytes = SIZE_MAX) const;
  /**
   * Queues @p data for stdin (written in order by the writer thread); with
   * @p close, stdin is closed after everything queued was written.
   */
  StdinOutcome writeStdin(std::string data, bool close);

  /** The reader thread's body: until exited and the output is at EOF. */
  void readLoop();
  /** Ends the reader once the process has exited, even if the pipes stay open. */
  void requestStop();

 private:
  void writeLoop();
  void startWriterLocked();
  void enforceLifetime(bool running);

  sdk::Subprocess child_;
  const pid_t pid_;
  const std::string command_;
  const std::string owner_;
  const std::uint64_t sequence_;
  const double started_at_;
  const std::chrono::steady_clock::time_point started_;
  const std::optional<std::chrono::milliseconds> lifetime_;
  std::shared_ptr<ThreadGate> gate_;

  mutable std::mutex mutex_;  // state, ring, reaping and signalling
  bool running_ = true;
  bool finished_ = false;
  std::optional<int> exit_code_;
  OutputRing ring_;
  std::atomic<bool> stop_{false};
  std::optional<std::chrono::steady_clock::time_point> term_sent_;
  bool kill_sent_ = false;

  std::mutex stdin_mutex_;  // the queue below
  std::condition_variable stdin_cv_;
  std::deque<std::string> queue_;
  std::size_t pending_ = 0;
  bool close_requested_ = false;
  bool stdin_closed_ = false;
  bool abandoned_ = false;  // the process exited: drop what is queued
  bool writer_started_ = false;
};

}  // namespace abx::plugins::process
