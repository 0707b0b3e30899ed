// AgentRuntime: the hosted agent runtime (agents spec §6.1, §6.2) — sessions
// and their turns, one active turn per session with a FIFO queue, a
// server-wide cap on running turns (a pool of that many workers), cancel
// with the kill ladder, turn and idle timeouts, the output cap, retention
// (TTL and LRU among idle sessions), persistence through SessionFile, and
// every event handed to the turn's observer and the runtime's listener (the
// wires keep what they replay). Clock, ids and kill grace are
// injectable so timeout and cancel tests run in milliseconds.
//
// Its definition is split by purpose: agent_runtime.cpp (the workers, the
// turn queue and a turn's end), agent_runtime_turn.cpp (one turn's run),
// agent_runtime_sessions.cpp (the session table and its retention) and
// agent_runtime_persistence.cpp (sessions.json); a turn's launch and the
// judgement of its outcome are turn_launch.h and turn_outcome.h.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/logger.h"
#include "abx/sdk/metrics.h"
#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"
#include "id_factory.h"
#include "mcp_bearer.h"
#include "retention_timer.h"
#include "runtime_clock.h"
#include "runtime_types.h"
#include "text_redaction.h"

namespace abx::plugins::agents {

class SessionFile;

/** A definition ready to run: the spec, its adapter and its redaction. */
struct ResolvedAgent {
  sdk::agents::AgentSpec spec;
  const sdk::agents::AgentAdapter* adapter = nullptr;
  std::shared_ptr<const TextRedaction> redaction;
  /** workspace.git.depth: the history a bootstrap clone fetches (0: all of it). */
  int git_depth = 1;
};

/** @return the agent called @p name, or nullptr (with @p why set). */
using AgentResolver =
    std::function<std::shared_ptr<const ResolvedAgent>(const std::string& name, std::string& why)>;

using TurnObserver = std::function<void(const RuntimeEvent&)>;
/** Told how a turn ended: the turn, or nullopt when it went without an end
 *  (its session was deleted while it was queued; the runtime shut down
 *  before it ran). */
using TurnEndHook = std::function<void(const std::optional<Turn>&)>;

struct TurnRequest {
  /** A turn id chosen by the caller (a wire that derives its own ids from it); "" for a new one. */
  std::string turn_id;
  std::string prompt;
  std::string extra_instructions;
  std::vector<sdk::agents::McpServerSpec> extra_mcp_servers;
  std::string reasoning_effort;
  /** The CLI's working directory (a session's workspace_directory, already
   *  checked to lie in the definition's workspace); "" = the workspace. */
  std::string workdir;
  std::vector<InputMessage> input;
  /** Secret env for this turn on top of the definition's (vault credentials). */
  sdk::agents::EnvList secret_env;
  /** MCP Authorization tokens by server URL (vault credentials); see mcp_bearer.h. */
  McpBearerTokens mcp_bearer_tokens;
  /** More values to redact this turn (per-turn MCP header secrets). The
   *  secret_env values and bearer tokens are redacted without being listed. */
  std::vector<std::string> extra_secrets;
  /** Sees every event of this turn, on the turn's thread; must not block. */
  TurnObserver observer;
  /** The policy's limits.max_duration_seconds of the request that asked for
   *  the turn: a ceiling over the definition's turn_timeout_s. */
  std::optional<std::chrono::milliseconds> max_duration;
  /** Not empty: the turn fails at its start with this message (a vault
   *  credential whose secret a restart lost). */
  std::string refusal;
};

struct RuntimeOptions {
  std::size_t max_concurrent_turns = 4;
  std::int64_t session_ttl_s = 24 * 3600;
  std::size_t max_sessions = 200;
  /** Also run retention on this period (retention_timer.h); unset: only
   *  when a session is created and when retain() is called. */
  std::optional<std::chrono::milliseconds> retention_interval;
  sdk::KillLadder ladder{std::chrono::milliseconds(5000), std::chrono::milliseconds(3000)};
  /** Where sessions.json lives; empty: no persistence. */
  std::string state_dir;
  /** ABX_AGENTS_PASSTHROUGH_ENV names. */
  std::vector<std::string> passthrough_env;
  /** The server's child environment ("NAME=value"); the allowlist is taken from it. */
  std::function<std::vector<std::string>()> base_env;
  /** The host's ChildEnvironment::isProtected: what no part of an agent's env may set. */
  std::function<bool(std::string_view)> env_protected;
  std::shared_ptr<const RuntimeClock> clock;
  IdFactory ids;
  /** Sees every event of every session after the turn's observer (the
   *  Agents wire's session streams); on the turn's thread; must not block. */
  std::function<void(const std::string& session_id, const RuntimeEvent&)> listener;
  /** The redaction of a turn that carries secrets beyond its agent's (vault
   *  env, bearer tokens, per-turn MCP headers); unset: the agent's own. */
  std::function<std::shared_ptr<const TextRedaction>(const sdk::agents::AgentSpec&,
                                                     const std::vector<std::string>& extra)>
      redaction_for;
  /** Turns a worker ran, counted at their end by runtime and outcome
   *  (labels "runtime", "outcome") and timed by runtime; null: not counted. */
  sdk::CounterFamily* turns_finished = nullptr;
  sdk::HistogramFamily* turn_seconds = nullptr;
  /** Told why a save of sessions.json failed (the first of a streak) and
   *  when saving works again; unset: failures are not reported. */
  sdk::Logger* log = nullptr;
};

/** How busy the runtime is now (the metrics' callback gauges). */
struct RuntimeLoad {
  std::size_t sessions = 0;
  std::size_t running = 0; /**< turns a worker runs */
  std::size_t queued = 0;  /**< turns waiting for a worker or for their session */
};

/** THREAD: every method is safe to call concurrently. */
class AgentRuntime {
 public:
  AgentRuntime(RuntimeOptions options, AgentResolver resolver);
  ~AgentRuntime();
  AgentRuntime(const AgentRuntime&) = delete;
  AgentRuntime& operator=(const AgentRuntime&) = delete;

  /** Loads sessions.json (in-flight turns become failed "server restarted"). */
  sdk::Status restore();

  /** A session of @p owner (an identity id; the wires judge who may use it).
   *  Status types on failure: "not_found" (unknown agent). */
  sdk::Result<SessionInfo> createSession(const std::string& agent,
                                         std::map<std::string, std::string> metadata = {},
                                         std::string owner = {},
                                         std::vector<std::string> vault_ids = {});
  /** Queues a turn. Failure types: "not_found". @return the queued turn. */
  sdk::Result<Turn> submitTurn(const std::string& session_id, TurnRequest request);
  /** Cancels a queued turn at once, a running one through the kill ladder (use
   *  waitTurn() for its end); a finished turn is returned unchanged. */
  sdk::Result<Turn> cancelTurn(const std::string& turn_id);
  /** Blocks until the turn is terminal or @p timeout passed. */
  std::optional<Turn> waitTurn(const std::string& turn_id, std::chrono::milliseconds timeout);
  /**
   * Calls @p then once, when the turn has ended: at once (on this thread)
   * when it already has or is unknown, else on the thread that ends it,
   * after its end is recorded and before its terminal event is published
   * (what a hook does, such as forgetting an unstored turn, is done before
   * any reader sees the end). A turn's hooks run in the order they were
   * added. How a wire waits for a turn without holding a thread; @p then
   * must not block.
   */
  void whenTurnEnds(const std::string& turn_id, TurnEndHook then);

  std::optional<SessionInfo> session(const std::string& id) const;
  std::vector<SessionInfo> sessions() const;
  RuntimeLoad load() const;
  std::optional<Turn> turn(const std::string& id) const;
  /** Replaces a session's metadata. @return false for an unknown session. */
  bool setMetadata(const std::string& id, std::map<std::string, std::string> metadata);
  /** Deletes a session (cancelling its turns). */
  bool deleteSession(const std::string& id);
  /** Forgets a finished turn (store: false); the session keeps its resume handle. */
  bool forgetTurn(const std::string& id);

  /** Evicts the sessions past session_ttl_s and beyond max_sessions (idle
   *  ones only); what the retention timer runs. */
  void retain();

  /** Cancels everything and joins the workers. Idempotent. */
  void shutdown();

 private:
  struct SessionState {
    SessionInfo info;
    bool running = false;
  };
  struct TurnState {
    Turn turn;
    /** Its end is recorded but not yet saved and published: waiters keep waiting. */
    bool ending = false;
    TurnRequest request;
    std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  };
  SessionInfo snapshotLocked(const SessionState& state) const;
  /** Whether a turn queued now waits: for its session's running turn, or
   *  for a worker (every one busy or promised to an earlier turn). */
  bool waitsLocked(const std::string& session_id) const;
  /** What a turn's worker takes from the tables as the turn starts. */
  struct TurnStart {
    std::string session_id;
    std::string agent;
    SessionHistory history;
    /** A copy: the record's own is dropped when the turn ends. */
    TurnRequest request;
    std::shared_ptr<std::atomic<bool>> cancel;
  };
  /** How a turn ended, as finishTurn() records it. */
  struct TurnEnd {
    static TurnEnd cancelled() {
      return {TurnStatus::cancelled, std::nullopt, {}, {}, std::nullopt};
    }
    static TurnEnd failure(TurnError error) {
      return {TurnStatus::failed, std::move(error), {}, {}, std::nullopt};
    }

    TurnStatus status = TurnStatus::failed;
    std::optional<TurnError> error;
    std::vector<Item> items;
    sdk::agents::TokenUsage usage;
    std::optional<std::string> native_session_id;
  };

  /** Starts the workers on the first turn. Caller holds mutex_. */
  sdk::Status startWorkersLocked();
  void workerLoop();
  /** Runs a turn through its stages: begin, prepare, execute, classify, finish. */
  void runTurn(const std::string& turn_id);
  /** The stages of runTurn(); @p runtime is set once the agent is resolved. */
  TurnEnd runStages(const std::string& turn_id, const TurnStart& start, std::string& runtime);
  /** Marks the turn and its session in progress and publishes turn.started. */
  TurnStart beginTurn(const std::string& turn_id);
  /** Keeps the latest state of an item of a running turn in its record. */
  void recordItem(const std::string& turn_id, const Item& item);
  /** Records the end, runs the end hooks and publishes the terminal event.
   *  @p releases_session: the turn ran, so its session is idle again. */
  void finishTurn(const std::string& turn_id, TurnEnd end, bool releases_session);
  void publish(const std::string& session_id, const RuntimeEvent& event,
               const TurnObserver& observer);
  /** Retention, leaving room for @p room more sessions. */
  void evictLocked(std::size_t room);
  /** @p why is told to the listener (session.ended) by announceEnded(). */
  void eraseSessionLocked(std::map<std::string, SessionState>::iterator it, std::string why);
  /** Tells the listener about the sessions erased since the last call, and
   *  the end hooks of their turns that never ran; without the lock. */
  void announceEnded();
  /** The end hooks of @p turn_id, taken out. Caller holds mutex_. */
  std::vector<TurnEndHook> takeEndHooksLocked(const std::string& turn_id);
  /** Asks the writer thread to save sessions.json soon (off the turn's path). */
  /** Asks the writer for a save covering every change so far. @return its generation. */
  std::uint64_t persist();
  /** persist(), then waits (at most kDurableWait) until that save is on
   *  disk: what a client is told has happened survives a kill -9. */
  void persistAndWait();
  void writerLoop();
  void writeState();

  RuntimeOptions options_;
  AgentResolver resolver_;
  std::unique_ptr<SessionFile> file_;
  std::unique_ptr<RetentionTimer> retention_;
  std::mutex persist_mutex_;
  std::condition_variable persist_wanted_;
  std::condition_variable persist_done_;
  bool dirty_ = false;            // guarded by persist_mutex_
  std::uint64_t asked_ = 0;       // guarded by persist_mutex_: generations asked for
  std::uint64_t saved_ = 0;       // guarded by persist_mutex_: the newest one on disk
  bool writer_stopping_ = false;  // guarded by persist_mutex_
  bool save_failing_ = false;     // the writer's own: the last save failed
  std::thread writer_;            // guarded by persist_mutex_; started by the first persist()

  mutable std::mutex mutex_;
  std::condition_variable work_;
  mutable std::condition_variable turn_changed_;
  std::map<std::string, SessionState> sessions_;
  std::map<std::string, TurnState> turns_;
  std::deque<std::string> pending_;                            // queued turn ids, submission order
  std::map<std::string, std::vector<TurnEndHook>> end_hooks_;  // by turn id, until it ends
  std::vector<TurnEndHook> orphaned_hooks_;  // of turns erased unended; run by announceEnded()
  // Sessions erased and why, until announceEnded() tells the listener.
  std::vector<std::pair<SessionInfo, std::string>> ended_;
  bool end_hooks_closed_ = false;  // shutdown() ran the last ones
  bool stopping_ = false;
  std::vector<std::thread> workers_;  // guarded by mutex_; empty until the first turn
};

}  // namespace abx::plugins::agents
