// TurnItems: turns one turn's ParsedEvents (from the adapter's parser) into
// Items and RuntimeEvents. It gives items their wire ids (msg_, rs_, mcp_),
// redacts every text before it is kept or published (deltas through a
// DeltaRedaction per item), synthesises a single delta for CLIs that deliver
// whole messages, and remembers what the CLI reported about itself: its
// resume handle, usage, and a failure it announced.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "id_factory.h"
#include "runtime_clock.h"
#include "runtime_types.h"
#include "text_redaction.h"

namespace abx::plugins::agents {

class TurnItems {
 public:
  using Sink = std::function<void(RuntimeEvent)>;

  /** @p runtime_label is the server_label of tool items (e.g. "codex"). */
  TurnItems(std::string turn_id, std::string runtime_label, const TextRedaction& redaction,
            IdFactory ids, const RuntimeClock& clock, Sink sink);

  /** The directory the CLI runs in: the cwd of its command_execution items. */
  void setWorkdir(std::string workdir) { workdir_ = std::move(workdir); }
  void apply(const sdk::agents::ParsedEvent& event);
  /** Ends every open item: completed when @p success, else incomplete. */
  void closeOpen(bool success);

  const std::vector<Item>& items() const { return items_; }
  const std::optional<std::string>& nativeSessionId() const { return native_session_id_; }
  const sdk::agents::TokenUsage& usage() const { return usage_; }
  /** A fatal error event or an unsuccessful result the CLI reported. */
  const std::optional<TurnError>& reportedFailure() const { return failure_; }

 private:
  struct Open {
    std::size_t index = 0;
    std::string raw;  // unredacted text so far, to match a later full message
    std::unique_ptr<DeltaRedaction> stream;
    bool done = false;
    std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  };

  Open& ensure(const std::string& key, const std::string& type, const std::string& prefix);
  void textDelta(const std::string& key, const std::string& type, const std::string& prefix,
                 const std::string& event_type, const std::string& delta);
  void fullText(const std::string& key, const std::string& type, const std::string& prefix,
                const std::string& event_type, const std::string& text);
  void toolStart(const sdk::agents::ParsedEvent& event);
  /** The open tool item of @p event; started first when the CLI never announced it. */
  Open& openTool(const sdk::agents::ParsedEvent& event);
  void toolOutput(const sdk::agents::ParsedEvent& event);
  void toolEnd(const sdk::agents::ParsedEvent& event);
  void finishItem(Open& open, const std::string& status);
  /** A tool item's end: its status and how long it ran; then item.done. */
  void endTool(Open& open, const std::string& status);
  void emit(std::string type, const Item& item, std::string delta = {});

  const std::string turn_id_;
  const std::string runtime_label_;
  std::string workdir_;
  const TextRedaction& redaction_;
  IdFactory ids_;
  const RuntimeClock& clock_;
  Sink sink_;
  std::vector<Item> items_;
  std::map<std::string, Open> open_;
  std::optional<std::string> native_session_id_;
  sdk::agents::TokenUsage usage_;
  std::optional<TurnError> failure_;
};

}  // namespace abx::plugins::agents
