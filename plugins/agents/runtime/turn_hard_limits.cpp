#include "turn_hard_limits.h"

#include <signal.h>

#include <string>

#include "abx/sdk/policy_limits.h"

namespace abx::plugins::agents {

void applyHardLimits(const sdk::agents::AgentSpec& spec, const TurnRequest& request,
                     TurnProcessLimits& limits) {
  if (spec.limits.cpu_seconds && *spec.limits.cpu_seconds > 0)
    limits.cpu_seconds = static_cast<unsigned>(*spec.limits.cpu_seconds);
  if (request.max_duration &&
      (!limits.turn_timeout || *request.max_duration < *limits.turn_timeout)) {
    limits.turn_timeout = request.max_duration;
    limits.timeout_is_max_duration = true;
  }
}

std::optional<TurnError> unenforceableLimit(const sdk::agents::AgentSpec& spec,
                                            const sdk::agents::AgentAdapter& adapter) {
  if (!spec.limits.max_turns || adapter.capabilities().max_turns) return std::nullopt;
  return TurnError{"invalid_request", "limits.max_turns is not supported by runtime '" +
                                          adapter.name() + "' (it has no turn limit); remove it"};
}

std::optional<TurnError> hardLimitFailure(const sdk::agents::AgentSpec& spec,
                                          const TurnProcessLimits& limits,
                                          const TurnProcessOutcome& outcome) {
  if (outcome.stop == TurnStop::turn_timeout && limits.timeout_is_max_duration)
    return TurnError{"request_timeout",
                     "turn stopped at the policy's limits.max_duration_seconds (" +
                         sdk::secondsText(*limits.turn_timeout) + " s)"};
  // SIGXCPU at the soft limit; SIGKILL at the hard one for an agent that
  // handles SIGXCPU. A SIGKILL of our own kill ladder is a stop, not an exit.
  const bool cpu_signal = outcome.exit_code == -SIGXCPU || outcome.exit_code == -SIGKILL;
  if (outcome.stop == TurnStop::exited && limits.cpu_seconds && cpu_signal)
    return TurnError{"sandbox_error", "agent '" + spec.name + "' passed limits.cpu_seconds (" +
                                          std::to_string(*spec.limits.cpu_seconds) +
                                          " s of CPU time)"};
  return std::nullopt;
}

}  // namespace abx::plugins::agents
