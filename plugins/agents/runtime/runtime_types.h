// The hosted runtime's data model (agents spec §6.1): sessions, turns, the
// items a turn produces, and the adapter-neutral RuntimeEvents (§6.3) the
// wires map onto the Responses and Agents-sessions shapes.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::agents {

enum class TurnStatus { queued, in_progress, completed, failed, cancelled };
enum class SessionStatus { idle, in_progress, failed };

const char* turnStatusName(TurnStatus s);
const char* sessionStatusName(SessionStatus s);
bool isTerminal(TurnStatus s);

/** Item kinds: message | reasoning | command_execution | mcp_call | file_change | web_search |
 * todo_list. */
struct Item {
  std::string id;
  std::string turn_id;
  std::string type;
  std::string status = "in_progress"; /**< in_progress | completed | incomplete | failed */
  std::string text;                   /**< message or reasoning text */
  std::string name;                   /**< tools: MCP tool name or the tool kind */
  std::string server_label;           /**< tools: MCP server, or the runtime's name */
  std::string arguments;              /**< tools: JSON text */
  std::string output;                 /**< tools: collected output */
  std::string error;                  /**< tools: error text */
  std::optional<int> exit_code;
  std::string cwd;                         /**< command_execution: where the turn's CLI ran */
  std::optional<std::int64_t> duration_ms; /**< tools: from start to end, once done */
  std::int64_t created_at = 0;
};

struct TurnError {
  std::string code;
  std::string message;
};

/** One user message of a turn's input, as the wires report it back. */
struct InputMessage {
  std::string id;
  std::string role = "user"; /**< user | system | developer | assistant */
  std::string text;
};

struct Turn {
  std::string id;
  std::string session_id;
  TurnStatus status = TurnStatus::queued;
  std::int64_t created_at = 0;
  std::int64_t started_at = 0;
  std::int64_t completed_at = 0;
  std::optional<TurnError> error;
  sdk::agents::TokenUsage usage;
  std::vector<Item> items;
  std::vector<InputMessage> input;
};

struct SessionInfo {
  std::string id;
  std::string agent;
  /** The identity that created it; "" for a record from before owners were kept. */
  std::string owner;
  SessionStatus status = SessionStatus::idle;
  std::string native_session_id;
  std::int64_t created_at = 0;
  std::int64_t last_active_at = 0;
  std::map<std::string, std::string> metadata;
  /** The vaults whose credentials its turns get (the Agents wire's vault_ids). */
  std::vector<std::string> vault_ids;
  std::vector<std::string> turn_ids; /**< oldest first */
  /** In the runtime's snapshots: the sum over the finished turns it still
   *  holds; nullopt before the first one. Not stored (computed). */
  std::optional<sdk::agents::TokenUsage> usage;
};

/** @p sum plus @p more, field by field. */
void addUsage(sdk::agents::TokenUsage& sum, const sdk::agents::TokenUsage& more);

/** What a session's earlier turns hand the next one. */
struct SessionHistory {
  /** The CLI's resume handle; empty before the first turn reported one. */
  std::string native_session_id;
  /** The sum of the usage the earlier turns reported. */
  sdk::agents::TokenUsage usage;
};

/** turn.queued | turn.waiting (queued behind the concurrency cap or its
 *  session's running turn) | turn.started | item.added | item.text.delta | item.reasoning.delta |
 *  item.output.delta | item.done | usage | turn.completed | turn.failed |
 *  turn.cancelled | log | error (a CLI's error that did not end the turn:
 *  code, delta = message) | session.ended (deleted or evicted; delta = why,
 *  only to RuntimeOptions::listener) */
struct RuntimeEvent {
  std::uint64_t seq = 0; /**< per session, from 1 */
  std::string type;
  std::string turn_id;
  std::string item_id;
  std::string delta; /**< the *.delta events, log and error text */
  std::string code;  /**< error: the failure code the CLI gave, or "" */
  /** item.added / item.done: the item's state. Shared, not copied: a
   *  flooding agent publishes hundreds of thousands of events. */
  std::shared_ptr<const Item> item;
  /** turn.*: the turn's state (items included on terminal events). */
  std::shared_ptr<const Turn> turn;
  /** session.ended: the session as it was last. */
  std::shared_ptr<const SessionInfo> session;
};

}  // namespace abx::plugins::agents
