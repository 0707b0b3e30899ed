#include "stream_job.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <utility>

#include "abx/sdk/json.h"
#include "exit_watch.h"
#include "run_limits.h"

namespace abx::plugins::process {
namespace {

using std::chrono::milliseconds;

// As StragglerSweep: silence after the leader's exit before its group is
// killed, then how long the pipes are still read.
constexpr milliseconds kLeaderQuiet{100};
constexpr milliseconds kStragglerDrain{200};
// Without a pidfd the leader's exit is noticed by probing, this often.
constexpr milliseconds kStreamingProbe{100};
constexpr milliseconds kExitProbe{10};
// Output read for one command per turn: a flood does not starve the others.
constexpr std::size_t kTurnBytes = 256 * 1024;
// Lines queued to the feed in one push.
constexpr std::size_t kPushBytes = 16 * 1024;

bool hasPidfd(const sdk::Subprocess& child) {
  const auto fds = child.readinessFds();
  return std::any_of(fds.begin(), fds.end(), [](int fd) { return !isPipe(fd); });
}

}  // namespace

bool isPipe(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

StreamJob::StreamJob(sdk::Subprocess child, std::shared_ptr<ShellFeed> feed,
                     const StreamSettings& settings, StreamLimits limits)
    : child_(std::move(child)),
      feed_(std::move(feed)),
      settings_(settings),
      limits_(limits),
      has_pidfd_(hasPidfd(child_)),
      last_output_(Clock::now()) {}

StreamJob::~StreamJob() {
  // Dropped unfinished (the plugin stops): the stream ends; the Subprocess
  // kills and reaps what is left.
  if (!finished()) feed_->finish({});
}

void StreamJob::service(Clock::time_point now) {
  again_ = false;
  if (phase_ == Phase::streaming) {
    if (abandoned_ || feed_->gone())
      startLadder(Reason::gone, now);
    else if (now >= limits_.deadline)
      startLadder(Reason::timeout, now);
    else
      stream(now);
  }
  if (phase_ == Phase::laddering) stepLadder(now);
}

void StreamJob::stream(Clock::time_point now) {
  if (!has_pidfd_ && !leader_exited_ && now >= next_probe_) {
    leader_exited_ = exitedUnreaped(child_.pid());
    next_probe_ = now + (child_.outputDone() ? kExitProbe : kStreamingProbe);
  }
  if (held_ && !feed_->holdsProducer()) {
    held_ = false;
    // Time spent waiting for the client is not drain time.
    if (swept_) drain_until_ += now - held_since_;
  }
  if (!held_ && !readingOver(now)) readLines(now);
  if (readingOver(now)) {
    // Output over (or the drain after a sweep): the command ends with its leader.
    if (auto code = child_.poll()) finishWith(exitFrame(*code));
    return;
  }
  if (!swept_ && !held_ && !again_ && leader_exited_ && now - last_output_ >= kLeaderQuiet)
    sweepStragglers(now);
}

bool StreamJob::readingOver(Clock::time_point now) const {
  return child_.outputDone() || (swept_ && !held_ && now >= drain_until_);
}

void StreamJob::readLines(Clock::time_point now) {
  std::string frames;
  std::size_t bytes = 0;
  while (true) {
    if (bytes >= kTurnBytes) {
      again_ = true;
      break;
    }
    auto line = child_.readLine(milliseconds(0), settings_.max_line);
    if (!line) break;
    last_output_ = now;
    bytes += line->text.size() + 1;
    addLine(*line, frames);
    if (frames.size() >= kPushBytes && !flush(frames, now)) return;
  }
  flush(frames, now);
}

void StreamJob::addLine(const sdk::OutputLine& line, std::string& frames) {
  if (limits_.cap) {
    if (truncated_ || line.text.size() > *limits_.cap - sent_) {
      truncated_ = true;  // the command runs on; its lines are dropped
      return;
    }
    sent_ += line.text.size();
  }
  // Per line of output: one writer sized for the line, two allocations (its
  // text and nesting stack), as many as the concatenation it replaced.
  sdk::JsonWriter data(line.text.size() + 16);
  data.beginObject().member("data", line.text).endObject();
  sdk::appendSseFrame(frames, line.stream == sdk::OutputStream::out ? "stdout" : "stderr",
                      data.text());
}

bool StreamJob::flush(std::string& frames, Clock::time_point now) {
  if (frames.empty()) return true;
  const auto pushed = feed_->push(frames);
  frames.clear();
  feed_->wake();
  if (pushed == ShellFeed::Push::ok) return true;
  if (pushed == ShellFeed::Push::full) {
    held_ = true;
    held_since_ = now;
  }
  again_ = false;
  return false;
}

void StreamJob::sweepStragglers(Clock::time_point now) {
  // The leader is an unreaped zombie, so the group id is still its own.
  swept_ = true;
  drain_until_ = now + kStragglerDrain;
  child_.signalGroup(SIGKILL);
}

void StreamJob::startLadder(Reason reason, Clock::time_point now) {
  phase_ = Phase::laddering;
  reason_ = reason;
  ladder_ = reason == Reason::timeout ? &settings_.timeout_ladder : &settings_.disconnect_ladder;
  step_ = 0;
  child_.signalGroup(SIGINT);
  step_until_ = now + ladder_->interrupt_grace;
}

void StreamJob::stepLadder(Clock::time_point now) {
  discardOutput();
  if (leaderGone()) {
    // What is left of its group goes with it (as Subprocess::terminate does).
    child_.signalGroup(SIGKILL);
    if (auto code = child_.poll()) {
      ladderEnded(*code);
      return;
    }
  }
  if (now >= step_until_) {
    if (step_ == 0) {
      child_.signalGroup(SIGTERM);
      step_until_ = now + ladder_->terminate_grace;
    } else {
      child_.signalGroup(SIGKILL);
      step_until_ = Clock::time_point::max();
    }
    ++step_;
  }
  if (!has_pidfd_) next_probe_ = now + kExitProbe;
}

void StreamJob::discardOutput() {
  std::size_t bytes = 0;
  while (bytes < kTurnBytes) {
    auto chunk = child_.readChunk(milliseconds(0));
    if (!chunk) return;
    bytes += chunk->bytes.size();
  }
  again_ = true;
}

bool StreamJob::leaderGone() {
  if (!leader_exited_) leader_exited_ = exitedUnreaped(child_.pid());
  return leader_exited_;
}

void StreamJob::ladderEnded(int code) {
  if (reason_ == Reason::timeout) {
    std::string frames;
    sdk::appendSseFrame(
        frames, "error",
        sdk::Response::error(500, timeoutMessage(limits_.timeout), "TimeoutError").body);
    finishWith(frames + exitFrame(code));
  } else {
    finishWith({});  // the client is gone, or the plugin stops: no events
  }
}

void StreamJob::finishWith(const std::string& frames) {
  phase_ = Phase::finished;
  again_ = false;
  feed_->finish(frames);
}

std::string StreamJob::exitFrame(int code) const {
  std::string frame;
  sdk::JsonWriter data;
  data.beginObject().member("exit_code", code);
  if (truncated_) data.member("truncated", true);
  sdk::appendSseFrame(frame, "exit", data.endObject().text());
  return frame;
}

StreamJob::Clock::time_point StreamJob::nextWake() const {
  if (phase_ == Phase::finished) return Clock::time_point::max();
  if (again_) return Clock::time_point::min();
  Clock::time_point t = Clock::time_point::max();
  if (phase_ == Phase::laddering) {
    t = step_until_;
    if (!has_pidfd_) t = std::min(t, next_probe_);
    return t;
  }
  t = limits_.deadline;
  if (held_) return t;  // the feed pokes the pump when the client took enough
  if (swept_)
    t = std::min(t, drain_until_);
  else if (leader_exited_)
    t = std::min(t, last_output_ + kLeaderQuiet);
  if (!has_pidfd_ && !leader_exited_) t = std::min(t, next_probe_);
  return t;
}

bool StreamJob::wantsPipes() const {
  return phase_ == Phase::laddering || (phase_ == Phase::streaming && !held_);
}

}  // namespace abx::plugins::process
