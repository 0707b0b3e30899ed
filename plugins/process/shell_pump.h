// ShellPump: the one thread that drives every running POST /shell/stream
// command, so a streamed command holds no HTTP worker while it runs. It
// watches each child's pipes and exit (Subprocess::readinessFds) with one
// epoll set, services a command when it has output, when its client took
// enough of a full queue or went away (the feed's poke), or when one of its
// timers is due (timeout, straggler sweep, kill ladder steps), and hands the
// encoded events to each stream's ShellFeed. Started with the first stream,
// stopped with the plugin; the thread is named `abx-shell-pump`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "abx/sdk/http_error.h"
#include "stream_job.h"

namespace abx::plugins::process {

class ShellPump {
 public:
  ShellPump();
  ShellPump(const ShellPump&) = delete;
  ShellPump& operator=(const ShellPump&) = delete;
  ~ShellPump();

  /**
   * Starts the thread if it is not running. A 503 refusal once the plugin
   * stopped, or when the thread cannot start. THREAD: any.
   */
  std::optional<sdk::HttpError> ready();
  /** A fresh id for add(). THREAD: any. */
  std::uint64_t nextId();
  /** What the feed of job @p id calls to have the job looked at soon. THREAD: any. */
  std::function<void()> poker(std::uint64_t id);
  /** Hands a command over (after ready()); after stop() it is stopped at once. THREAD: any. */
  void add(std::uint64_t id, std::unique_ptr<StreamJob> job);
  /**
   * Stops every command as if its client had gone (the disconnect ladder),
   * waits for them up to @p grace, kills what is left, and ends the thread.
   */
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(1500)) noexcept;

 private:
  struct Inbox;
  struct Entry {
    std::unique_ptr<StreamJob> job;
    std::vector<int> pipes;  // the child's output pipes when it was added
    std::vector<int> armed;  // those in the epoll set now
    bool hot = true;         // service at the next turn
  };
  using Clock = std::chrono::steady_clock;

  void run();
  void adopt(std::uint64_t id, std::unique_ptr<StreamJob> job);
  /** Services what is hot or due; drops what finished. */
  void serviceJobs(Clock::time_point now);
  /** Watches the job's pipes while it wants them (a full feed: not). */
  void syncWatch(std::uint64_t id, Entry& entry);
  void unwatch(Entry& entry);
  int waitMs(Clock::time_point now, std::optional<Clock::time_point> stop_by) const;

  std::shared_ptr<Inbox> inbox_;
  std::mutex start_mutex_;
  bool stopped_ = false;  // under start_mutex_
  std::thread thread_;
  int epoll_fd_ = -1;
  // The thread's only.
  std::unordered_map<std::uint64_t, Entry> jobs_;
};

}  // namespace abx::plugins::process
