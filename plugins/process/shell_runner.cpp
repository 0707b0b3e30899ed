#include "shell_runner.h"

#include <algorithm>
#include <optional>

#include "abx/sdk/utf8.h"
#include "exit_watch.h"
#include "run_limits.h"

namespace abx::plugins::process {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

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
    into.append(chunk.bytes, 0, sdk::utf8SafeCut(chunk.bytes, budget_));
    budget_ = 0;
    result_.truncated = true;
  }

 private:
  CommandResult& result_;
  std::size_t budget_;
};

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
  StragglerSweep sweep(child);
  std::optional<int> code;

  while (!code) {
    const milliseconds left = timeLeft(deadline);
    if (left.count() == 0) {
      result.timed_out = true;
      break;
    }
    if (!sweep.draining()) {
      code = child.waitFor(left);
      continue;
    }
    if (auto chunk = child.readChunk(sweep.slice(left))) {
      collect.add(*chunk);
      continue;
    }
    sweep.check();
  }

  if (result.timed_out) {
    result.exit_code = child.terminate(limits.ladder);
  } else {
    result.exit_code = *code;
  }
  return result;
}

}  // namespace abx::plugins::process
