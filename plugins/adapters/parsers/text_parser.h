// TextParser ("text"): a CLI that prints plain text. Every stdout line is a
// delta of one assistant message; finish() closes the message and the turn.
#pragma once

#include <string>

#include "abx/sdk/agent_adapter.h"

namespace abx::plugins::adapters {

/**
 * feed(line)   -> text_delta{id "msg_0", text: line, preceded by "\n" after the first line}
 * finish(exit) -> message{id "msg_0", full text} (only when a line arrived),
 *                 result{ok: exit == 0, text: full text}
 */
class TextParser final : public sdk::agents::EventParser {
 public:
  static constexpr const char* kItemId = "msg_0";

  void feed(std::string_view line, std::vector<sdk::agents::ParsedEvent>& out) override;
  void finish(int exit_code, std::vector<sdk::agents::ParsedEvent>& out) override;

 private:
  std::string text_;
  bool any_line_ = false;
};

}  // namespace abx::plugins::adapters
