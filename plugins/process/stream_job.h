// StreamJob: one running POST /shell/stream command as the shell pump drives
// it, a step at a time and never waiting: read the lines that are there and
// queue them as `stdout` / `stderr` events, end with `exit`; at the timeout
// or when the client went away, step the kill ladder on its timers instead
// of sleeping through it. The rules are the blocking loop's (see
// StragglerSweep): a command is over when its leader exited and its pipes
// reached EOF; a leader that exited while its group still holds the pipes,
// silent for a moment, gets the group killed and the pipes drained briefly.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/subprocess.h"
#include "shell_feed.h"

namespace abx::plugins::process {

/** The fixed settings of the route's streams; tests shorten them. */
struct StreamSettings {
  /** A stream served on its handler's thread writes a comment after this silence. */
  std::chrono::milliseconds probe_interval{500};
  /** The ladder when the client went away. */
  sdk::KillLadder disconnect_ladder{std::chrono::milliseconds(200), std::chrono::milliseconds(200)};
  /** The ladder at the timeout. */
  sdk::KillLadder timeout_ladder{std::chrono::milliseconds(1000), std::chrono::milliseconds(1000)};
  /** Longer lines arrive as several events. */
  std::size_t max_line = 1u << 20;
  /** Encoded events queued for a slow client before the command's pipes are left unread. */
  std::size_t queue_bytes = 1u << 20;
};

/** What one command's stream asked for. */
struct StreamLimits {
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds timeout{0}; /**< for the TimeoutError message */
  std::optional<std::size_t> cap;       /**< bytes of lines sent (the policy's) */
};

class StreamJob {
 public:
  using Clock = std::chrono::steady_clock;

  StreamJob(sdk::Subprocess child, std::shared_ptr<ShellFeed> feed, const StreamSettings& settings,
            StreamLimits limits);
  StreamJob(const StreamJob&) = delete;
  StreamJob& operator=(const StreamJob&) = delete;
  /** A job dropped before its end (the plugin stops) ends its stream too. */
  ~StreamJob();

  /** Does what is due now: read and queue, sweep, step a ladder, finish. */
  void service(Clock::time_point now);
  /** The child's exit descriptor became readable: the leader exited. */
  void leaderExited() { leader_exited_ = true; }
  /** The plugin stops: the command is stopped as if its client had gone. */
  void abandon() { abandoned_ = true; }

  bool finished() const { return phase_ == Phase::finished; }
  /** When service() must run again even without an event; Clock::time_point::max() for never. */
  Clock::time_point nextWake() const;
  /** The output pipes should be watched (false while a slow client holds the reader). */
  bool wantsPipes() const;
  const sdk::Subprocess& child() const { return child_; }

 private:
  enum class Phase { streaming, laddering, finished };
  enum class Reason { timeout, gone };

  void stream(Clock::time_point now);
  /** Reads and queues lines until none is there, the turn's share is used or the queue is full. */
  void readLines(Clock::time_point now);
  void addLine(const sdk::OutputLine& line, std::string& frames);
  /** Queues @p frames; false when the feed is now full (or the client gone). */
  bool flush(std::string& frames, Clock::time_point now);
  /** Leader gone, pipes quiet: the rest of the group is killed, the pipes drained briefly. */
  void sweepStragglers(Clock::time_point now);
  bool readingOver(Clock::time_point now) const;
  void startLadder(Reason reason, Clock::time_point now);
  void stepLadder(Clock::time_point now);
  /** Reads and drops output so a child writing while it is stopped does not block. */
  void discardOutput();
  bool leaderGone();
  void ladderEnded(int code);
  void finishWith(const std::string& frames);
  std::string exitFrame(int code) const;

  sdk::Subprocess child_;
  std::shared_ptr<ShellFeed> feed_;
  const StreamSettings settings_;
  const StreamLimits limits_;
  const bool has_pidfd_;  // else the exit is noticed by probing
  Phase phase_ = Phase::streaming;

  // streaming
  bool held_ = false;  // the feed is full: the pipes are left unread
  Clock::time_point held_since_{};
  Clock::time_point last_output_;  // the last line read
  bool leader_exited_ = false;
  bool swept_ = false;
  Clock::time_point drain_until_{};
  std::size_t sent_ = 0;
  bool truncated_ = false;
  bool again_ = false;  // stopped at its share of a turn: service again at once
  bool abandoned_ = false;
  Clock::time_point next_probe_{};

  // laddering
  Reason reason_ = Reason::gone;
  const sdk::KillLadder* ladder_ = nullptr;
  int step_ = 0;
  Clock::time_point step_until_{};
};

/** True for a pipe; false for the child's pidfd (readinessFds() holds both). */
bool isPipe(int fd);

}  // namespace abx::plugins::process
