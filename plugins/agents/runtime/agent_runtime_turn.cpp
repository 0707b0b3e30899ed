// One turn's run on a worker, in its stages: begin (the turn and its
// session in progress, turn.started), prepare (turn_launch.h), bootstrap
// (workspace_bootstrap.h: the workspace.git checkout), execute (the
// agent runs, its items recorded and published as they come), classify
// (turn_outcome.h) and finish (finishTurn()).
#include <algorithm>

#include "agent_runtime.h"
#include "turn_items.h"
#include "turn_launch.h"
#include "turn_outcome.h"
#include "workspace_bootstrap.h"

namespace abx::plugins::agents {

void AgentRuntime::runTurn(const std::string& turn_id) {
  const auto began = std::chrono::steady_clock::now();
  const TurnStart start = beginTurn(turn_id);
  std::string runtime = "unknown";
  TurnEnd end = runStages(turn_id, start, runtime);
  const std::string_view outcome = turnStatusName(end.status);
  if (options_.turns_finished) options_.turns_finished->labels({runtime, outcome}).inc();
  if (options_.turn_seconds)
    options_.turn_seconds->labels({runtime}).observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  finishTurn(turn_id, std::move(end), true);
}

AgentRuntime::TurnEnd AgentRuntime::runStages(const std::string& turn_id, const TurnStart& start,
                                              std::string& runtime) {
  if (start.cancel->load()) return TurnEnd::cancelled();
  if (!start.request.refusal.empty())
    return TurnEnd::failure(TurnError{"invalid_request", start.request.refusal});
  std::string why;
  auto agent = resolver_(start.agent, why);
  if (!agent || !agent->adapter) return TurnEnd::failure(TurnError{"invalid_request", why});
  runtime = agent->adapter->name();

  TurnLaunch launch(std::move(agent));
  // The turn directory is gone before the turn is reported finished.
  if (auto refused = prepareTurnLaunch(start.request, start.history, options_, launch)) {
    launch.directory.remove();
    return TurnEnd::failure(std::move(*refused));
  }
  const auto& observer = start.request.observer;
  TurnItems items(turn_id, launch.adapter().name(), *launch.redaction, options_.ids,
                  *options_.clock, [&](RuntimeEvent event) {
                    if (event.item) recordItem(turn_id, *event.item);
                    publish(start.session_id, std::move(event), observer);
                  });
  items.setWorkdir(launch.spawn.cwd);
  if (auto failed = bootstrapTurnWorkspace(launch, options_, *start.cancel, items)) {
    launch.directory.remove();
    const auto status = failed->code == "cancelled" ? TurnStatus::cancelled : TurnStatus::failed;
    if (status == TurnStatus::cancelled) failed.reset();
    return {status, std::move(failed), items.items(), {}, std::nullopt};
  }
  const auto outcome = runTurnLaunch(launch, *start.cancel, items);

  auto verdict = classifyTurnOutcome(launch, outcome, items.reportedFailure());
  items.closeOpen(verdict.status == TurnStatus::completed);
  launch.directory.remove();
  return {verdict.status, std::move(verdict.error), items.items(), items.usage(),
          items.nativeSessionId()};
}

AgentRuntime::TurnStart AgentRuntime::beginTurn(const std::string& turn_id) {
  TurnStart start;
  {
    std::lock_guard lock(mutex_);
    auto& state = turns_.at(turn_id);
    start.session_id = state.turn.session_id;
    auto& session = sessions_.at(start.session_id);
    start.agent = session.info.agent;
    start.history.native_session_id = session.info.native_session_id;
    start.history.usage = snapshotLocked(session).usage.value_or(sdk::agents::TokenUsage{});
    start.cancel = state.cancel;
    start.request = state.request;
    state.turn.status = TurnStatus::in_progress;
    state.turn.started_at = options_.clock->unixSeconds();
    session.info.last_active_at = state.turn.started_at;
  }
  RuntimeEvent started;
  started.type = "turn.started";
  started.turn_id = turn_id;
  if (auto now = turn(turn_id)) started.turn = std::make_shared<const Turn>(std::move(*now));
  publish(start.session_id, std::move(started), start.request.observer);
  return start;
}

void AgentRuntime::recordItem(const std::string& turn_id, const Item& item) {
  std::lock_guard lock(mutex_);
  auto& stored = turns_.at(turn_id).turn.items;
  auto it =
      std::find_if(stored.begin(), stored.end(), [&](const Item& i) { return i.id == item.id; });
  if (it == stored.end())
    stored.push_back(item);
  else
    *it = item;
}

}  // namespace abx::plugins::agents
