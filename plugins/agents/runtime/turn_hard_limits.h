// The hard limits of a turn's agent process, apart from the definition's
// soft timeouts: the definition's limits.cpu_seconds (RLIMIT_CPU on each of
// the agent's processes) and the policy's limits.max_duration_seconds of
// the request that asked for the turn (a wall-clock ceiling over
// turn_timeout_s). applyHardLimits() puts them on the launch;
// hardLimitFailure() names the one that ended a turn; unenforceableLimit()
// refuses a max_turns the runtime could only ignore.
#pragma once

#include <optional>

#include "abx/sdk/agent_adapter.h"
#include "agent_runtime.h"
#include "runtime_types.h"
#include "turn_process.h"

namespace abx::plugins::agents {

void applyHardLimits(const sdk::agents::AgentSpec& spec, const TurnRequest& request,
                     TurnProcessLimits& limits);

/**
 * The refusal of a limit the runtime cannot keep: limits.max_turns for a
 * runtime without a turn switch. POST /v1/agents refuses such a definition
 * through the adapter's validate(); this catches one from the server's
 * agents file, which is not validated per runtime, before the turn runs.
 */
std::optional<TurnError> unenforceableLimit(const sdk::agents::AgentSpec& spec,
                                            const sdk::agents::AgentAdapter& adapter);

/** The failure when a hard limit of @p limits ended the turn of @p outcome. */
std::optional<TurnError> hardLimitFailure(const sdk::agents::AgentSpec& spec,
                                          const TurnProcessLimits& limits,
                                          const TurnProcessOutcome& outcome);

}  // namespace abx::plugins::agents
