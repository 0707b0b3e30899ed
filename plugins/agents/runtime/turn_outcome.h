// The classify stage of AgentRuntime::runTurn: how a turn whose agent ran
// (or could not start) ended — completed, cancelled or failed, and then with
// which code of the failure table (docs/agents.md): the watchdog's stops,
// the spawn error, the parser's, and for a CLI that exited unsuccessfully
// what it said on stderr and reported on stdout, judged by its adapter.
// Every text taken from the CLI is redacted.
#pragma once

#include <optional>

#include "runtime_types.h"
#include "turn_launch.h"
#include "turn_process.h"

namespace abx::plugins::agents {

struct TurnVerdict {
  TurnStatus status = TurnStatus::failed;
  /** Set when the status is failed. */
  std::optional<TurnError> error;
};

/** @p reported: the failure the CLI reported about itself (TurnItems). */
TurnVerdict classifyTurnOutcome(const TurnLaunch& launch, const TurnProcessOutcome& outcome,
                                const std::optional<TurnError>& reported);

}  // namespace abx::plugins::agents
