// The launch of one turn's agent, the prepare and execute stages of
// AgentRuntime::runTurn. prepareTurnLaunch() makes everything ready and
// checks it: the agent's spec with this turn's MCP bearer tokens bound, the
// turn's redaction, the adapter's TurnContext, invocation and parser, a
// private turn directory holding the adapter's files, the child's argv, cwd
// and environment, and the process limits. runTurnLaunch() then runs the
// agent, its output through the parser into the turn's items.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/subprocess.h"
#include "agent_runtime.h"
#include "runtime_types.h"
#include "text_redaction.h"
#include "turn_process.h"

namespace abx::plugins::agents {

class TurnItems;

/** A turn's private directory for the adapter's files: 0700, the agent's
 *  own when agents run as a child user; removed by remove(), at the latest
 *  when it is destroyed. */
class TurnDirectory {
 public:
  TurnDirectory() = default;
  ~TurnDirectory() { remove(); }
  TurnDirectory(const TurnDirectory&) = delete;
  TurnDirectory& operator=(const TurnDirectory&) = delete;

  /** Makes a new directory; false when none could be made. */
  bool create();
  /** Writes @p files below it; an error when one would leave it or cannot be written. */
  sdk::Status write(const std::vector<sdk::agents::InvocationFile>& files) const;
  /** Removes it with its content (nothing when there is none). */
  void remove();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/** Neither copied nor moved: the context points at the spec, and the
 *  parser may point at the context. */
struct TurnLaunch {
  explicit TurnLaunch(std::shared_ptr<const ResolvedAgent> resolved) : agent(std::move(resolved)) {}
  TurnLaunch(const TurnLaunch&) = delete;
  TurnLaunch& operator=(const TurnLaunch&) = delete;

  const sdk::agents::AgentSpec& spec() const { return *context.spec; }
  const sdk::agents::AgentAdapter& adapter() const { return *agent->adapter; }

  const std::shared_ptr<const ResolvedAgent> agent;
  /** The agent's spec with this turn's bearer tokens bound, when it has any. */
  sdk::agents::AgentSpec bound_spec;
  /** What the adapter is told; its spec is the agent's or bound_spec. */
  sdk::agents::TurnContext context;
  std::shared_ptr<const TextRedaction> redaction;
  TurnDirectory directory;
  sdk::agents::Invocation invocation;
  std::unique_ptr<sdk::agents::EventParser> parser;
  sdk::SpawnOptions spawn;
  TurnProcessLimits limits;
};

/**
 * Prepares @p launch (whose agent has an adapter) for @p request of a
 * session with @p history. @return the error that fails the turn instead
 * (its turn directory, if made, is still to be removed).
 */
std::optional<TurnError> prepareTurnLaunch(const TurnRequest& request,
                                           const SessionHistory& history,
                                           const RuntimeOptions& options, TurnLaunch& launch);

/** Runs the prepared agent to its end (or @p cancel), every parsed event
 *  applied to @p items; a parser that throws makes the outcome line_rejected. */
TurnProcessOutcome runTurnLaunch(TurnLaunch& launch, const std::atomic<bool>& cancel,
                                 TurnItems& items);

}  // namespace abx::plugins::agents
