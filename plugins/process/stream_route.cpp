#include "stream_route.h"

#include <algorithm>
#include <string>

#include "exit_watch.h"
#include "run_limits.h"

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string errorData(std::string_view message, std::string_view type) {
  return "{\"error\":" + sdk::jsonQuote(message) + ",\"type\":" + sdk::jsonQuote(type) + "}";
}

enum class Ending { exited, timed_out, disconnected };

/** Drives one spawned command to its end, writing its lines to @p stream. */
class StreamPump {
 public:
  StreamPump(sdk::Subprocess& child, sdk::SseStream& stream, const StreamSettings& settings,
             std::optional<std::size_t> cap)
      : child_(child), stream_(stream), settings_(settings), cap_(cap) {}

  Ending run(Clock::time_point deadline) {
    last_write_ = Clock::now();
    while (true) {
      const milliseconds left = timeLeft(deadline);
      if (left.count() == 0) return Ending::timed_out;
      if (!stream_.open()) return Ending::disconnected;
      if (!sweep_.draining()) {
        if (auto code = child_.waitFor(std::min(left, settings_.probe_interval))) {
          exit_code_ = *code;
          return Ending::exited;
        }
        if (!probe()) return Ending::disconnected;
        continue;
      }
      const milliseconds slice = sweep_.slice(std::min(left, settings_.probe_interval));
      if (auto line = child_.readLine(slice, settings_.max_line)) {
        if (!send(*line)) return Ending::disconnected;
        continue;
      }
      if (!probe()) return Ending::disconnected;
      sweep_.check();
    }
  }

  int exitCode() const { return exit_code_; }
  bool truncated() const { return truncated_; }

 private:
  bool send(const sdk::OutputLine& line) {
    if (cap_) {
      if (truncated_ || line.text.size() > *cap_ - sent_) {
        truncated_ = true;  // the command runs on; its lines are dropped
        return true;
      }
      sent_ += line.text.size();
    }
    last_write_ = Clock::now();
    return stream_.event(line.stream == sdk::OutputStream::out ? "stdout" : "stderr",
                         "{\"data\":" + sdk::jsonQuote(line.text) + "}");
  }

  // A write is the only way to learn that the client closed the connection.
  bool probe() {
    if (Clock::now() - last_write_ < settings_.probe_interval) return stream_.open();
    last_write_ = Clock::now();
    return stream_.comment("keep-alive");
  }

  sdk::Subprocess& child_;
  sdk::SseStream& stream_;
  const StreamSettings& settings_;
  std::optional<std::size_t> cap_;
  std::size_t sent_ = 0;
  bool truncated_ = false;
  Clock::time_point last_write_{};
  StragglerSweep sweep_{child_};
  int exit_code_ = 0;
};

}  // namespace

std::optional<sdk::Response> shellStream(const LaunchContext& context,
                                         const StreamSettings& settings,
                                         const sdk::Request& request, sdk::SseStream& stream) {
  auto launch = prepareLaunch(request, context);
  if (auto* refusal = std::get_if<Refusal>(&launch)) return toResponse(*refusal);
  auto timeout = commandTimeout(request.json, request.policy);
  if (auto* refusal = std::get_if<Refusal>(&timeout)) return toResponse(*refusal);
  const milliseconds limit = std::get<milliseconds>(timeout);

  auto spawned = sdk::Subprocess::spawn(std::get<Launch>(launch).spawn);
  if (!spawned) {
    const Refusal failure = spawnFailure(spawned.status());
    stream.event("error", errorData(failure.message, failure.type));
    return std::nullopt;
  }
  sdk::Subprocess& child = *spawned;
  const auto deadline = Clock::now() + limit;
  if (!stream.begin()) {
    child.terminate(settings.disconnect_ladder);
    return std::nullopt;
  }

  StreamPump pump(child, stream, settings, explicitOutputCap(request.policy));
  const auto exitData = [&](int code) {
    return "{\"exit_code\":" + std::to_string(code) +
           (pump.truncated() ? ",\"truncated\":true}" : "}");
  };
  switch (pump.run(deadline)) {
    case Ending::disconnected:
      child.terminate(settings.disconnect_ladder);
      break;
    case Ending::timed_out: {
      const int code = child.terminate(settings.timeout_ladder);
      stream.event("error", errorData(timeoutMessage(limit), "TimeoutError"));
      stream.event("exit", exitData(code));
      break;
    }
    case Ending::exited:
      stream.event("exit", exitData(pump.exitCode()));
      break;
  }
  return std::nullopt;
}

}  // namespace abx::plugins::process
