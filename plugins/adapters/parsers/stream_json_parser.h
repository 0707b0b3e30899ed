// StreamJsonParser: the `--output-format stream-json` stdout Claude Code, Qwen
// Code and cursor-agent share (one JSON object a line, typed by "type"). The
// three CLIs differ in a few places (usage semantics, tool output events,
// cursor's own assistant/thinking/tool_call lines); those are the
// customization points below, everything else is parsed here once.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "abx/sdk/agent_adapter.h"
#include "json_reads.h"
#include "tool_kinds.h"

namespace abx::plugins::adapters {

/**
 * system/init                         -> session{id: session_id} (the first one only)
 * system/api_retry                    -> error{fatal: false, code}
 * stream_event content_block_delta    -> text_delta / reasoning_delta{id: "<message id>:<n>"}
 *                                        (n counts the blocks of that API message; block
 *                                        indexes are not used: Qwen sends 0 for every block)
 * assistant text block                -> message{same id as its deltas, full text}
 * assistant thinking block            -> reasoning{same id as its deltas, full text}
 * assistant tool_use block            -> tool_start{id: tool_use id, name, tool_kind, server,
 *                                        arguments: input JSON, command: input.command}
 * user tool_result block              -> [tool_output{id, text}], tool_end{id, status
 *                                        completed|failed, text, exit_code (shell tools), error}
 * result                              -> [usage], [error{fatal} if is_error or a subtype other
 *                                        than success], result{ok, text, stop_reason, usage}
 * An API error shown as assistant text (Claude's `<synthetic>` message, Qwen's
 * "[API Error: ..." text) becomes one error{fatal: true, code}, never a
 * message: a text block whose first characters could start "[API Error" is
 * held back until it is decided. Non-JSON line -> log; other types ignored.
 * A result or finish() closes the open thinking (reasoning{its deltas}) and
 * text (message) items; finish() adds result{ok: false} if none arrived (with
 * the code and text of the last api_retry when it was retrying).
 */
class StreamJsonParser : public sdk::agents::EventParser {
 public:
  /** What differs between the CLIs without code of its own. */
  struct Options {
    /** Text starting "[API Error" is a provider error (Qwen's; jsonl-claude reads Qwen too). */
    bool api_error_text = true;
    /** A tool_result yields a tool_output with its text before the tool_end. */
    bool tool_output = true;
    /** finish()'s result text when no result line came; empty: the last message. */
    std::string no_result_text;
  };

  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) final;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) final;

 protected:
  explicit StreamJsonParser(Options options) : options_(std::move(options)) {}

  /** First look at every JSON line: true when the subclass handled it (the base skips it). */
  virtual bool onLine(const std::string& type, const sdk::Json& line,
                      std::vector<sdk::agents::ParsedEvent>& out);
  /** Every assistant line's `message`, before its blocks are read. */
  virtual void onAssistantMessage(const sdk::Json& message);
  /** This turn's usage from a result line; nullopt: the line reports none (no usage event). */
  virtual std::optional<sdk::agents::TokenUsage> resultUsage(const sdk::Json& line) = 0;

  /** The session id of the first system/init ("" before it). */
  const std::string& sessionId() const { return session_id_; }

  /** The text of the open text item, nullptr when none is open. */
  const std::string* openText() const { return open_text_ ? &open_text_->text : nullptr; }
  /** Opens a text item @p id (after closing the open one). */
  void openTextItem(std::string id, std::vector<sdk::agents::ParsedEvent>& out);
  /** Appends @p delta to the open text item (one is opened when none is) and streams it. */
  void streamText(std::string delta, std::vector<sdk::agents::ParsedEvent>& out);
  /** Ends the open text item: message{full text}, or the fatal error an API error text is. */
  void closeOpenText(std::vector<sdk::agents::ParsedEvent>& out);
  /** Opens a thinking item @p id; a delta before any opens one itself. */
  void openThinkingItem(std::string id);
  bool thinkingOpen() const { return open_thinking_.has_value(); }
  void streamThinking(std::string delta, std::vector<sdk::agents::ParsedEvent>& out);
  /** Ends the open thinking item: reasoning{what its deltas said}, if they said anything. */
  void closeOpenThinking(std::vector<sdk::agents::ParsedEvent>& out);
  /** tool_start{id, kind, wire name, server, arguments ("{}" when empty), command}. */
  void startTool(const std::string& id, const ToolKind& kind, std::string arguments,
                 std::string command, std::vector<sdk::agents::ParsedEvent>& out);

 private:
  /** A text or thinking item that is streaming and has no assistant line yet. */
  struct OpenBlock {
    std::string id;
    std::string text;
    std::string held;     /**< text deltas not yet emitted */
    bool holding = false; /**< could still be an "[API Error" text */
  };

  void onSystem(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onStreamEvent(const sdk::Json& event, std::vector<sdk::agents::ParsedEvent>& out);
  void onAssistant(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onUser(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void onResult(const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  void pushFatalError(std::string text, std::string code,
                      std::vector<sdk::agents::ParsedEvent>& out);
  /** Ends a text item: message, or a fatal error when it is an API error text. */
  void completeText(const std::string& id, const std::string& text, bool api_error,
                    const sdk::Json& line, std::vector<sdk::agents::ParsedEvent>& out);
  bool isApiErrorText(const std::string& text) const;
  std::string newBlockId(const std::string& message_id);

  const Options options_;
  std::string session_id_;
  bool session_sent_ = false;
  std::string stream_message_id_;
  std::optional<OpenBlock> open_text_;
  std::optional<OpenBlock> open_thinking_;
  std::map<std::string, int> blocks_per_message_;
  std::set<std::string> used_ids_;
  std::map<std::string, std::string> tool_kinds_; /**< tool id -> tool kind */
  std::string last_message_;
  std::optional<sdk::agents::ParsedEvent> last_retry_; /**< the latest api_retry error */
  bool fatal_error_sent_ = false;
  bool result_sent_ = false;
};

}  // namespace abx::plugins::adapters
