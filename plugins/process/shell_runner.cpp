#include "shell_runner.h"

#include <signal.h>

#include <algorithm>
#include <optional>

#include "exit_watch.h"
#include "utf8_text.h"

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often a command whose pipes stay open is checked for a finished leader.
constexpr milliseconds kLeaderProbe{100};
// How long output is still read after the leader exited with its pipes open.
constexpr milliseconds kStragglerDrain{200};

class Collector {
 public:
  Collector(CommandResult& result, std::size_t budget) : result_(result), budget_(budget) {}
  void add(sdk::OutputChunk& chunk) {
    if (result_.truncated) return;
    std::string& into = chunk.stream == sdk::OutputStream::out ? result_.out : result_.err;
    if (chunk.bytes.size() <= budget_) {
      budget_ -= chunk.bytes.size();
      into += chunk.bytes;
      return;
    }
    into.append(chunk.bytes, 0, utf8SafeCut(chunk.bytes, budget_));
    budget_ = 0;
    result_.truncated = true;
  }

 private:
  CommandResult& result_;
  std::size_t budget_;
};

milliseconds until(Clock::time_point deadline) {
  return std::max(milliseconds(0), std::chrono::ceil<milliseconds>(deadline - Clock::now()));
}

}  // namespace

sdk::Result<CommandResult> runCommand(const sdk::SpawnOptions& options,
                                      const CommandLimits& limits) {
  auto spawned = sdk::Subprocess::spawn(options);
  if (!spawned) return spawned.status();
  sdk::Subprocess& child = *spawned;
  child.closeStdin();

  CommandResult result;
  Collector collect(result, limits.max_output_bytes);
  const auto deadline = Clock::now() + limits.timeout;
  std::optional<ExitWatch> watch;  // opened only for a command that outlives a probe
  bool leader_gone = false;
  Clock::time_point drain_until{};
  std::optional<int> code;

  while (!code) {
    const milliseconds left = until(deadline);
    if (left.count() == 0) {
      result.timed_out = true;
      break;
    }
    const bool draining = !child.outputDone() && (!leader_gone || Clock::now() < drain_until);
    if (!draining) {
      code = child.waitFor(left);
      continue;
    }
    auto chunk = child.readChunk(leader_gone ? std::min(left, until(drain_until))
                                             : std::min(left, kLeaderProbe));
    if (chunk) {
      collect.add(*chunk);
      continue;
    }
    if (leader_gone || child.outputDone()) continue;
    if (!watch) watch.emplace(child.pid());
    if (watch->exited()) {
      // The leader is an unreaped zombie, so the group id is still its own:
      // kill what it left behind, then drain what they wrote, briefly (a
      // process that left the group may hold the pipes forever).
      leader_gone = true;
      drain_until = Clock::now() + kStragglerDrain;
      child.signalGroup(SIGKILL);
    }
  }

  if (result.timed_out) {
    result.exit_code = child.terminate(limits.ladder);
  } else {
    result.exit_code = *code;
  }
  return result;
}

}  // namespace abx::plugins::process
