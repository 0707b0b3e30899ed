// makeParser(): parser names -> parser instances.
#include "agent_parsers.h"

#include "claude_stream_parser.h"
#include "codex_jsonl_parser.h"
#include "text_parser.h"

namespace abx::plugins::adapters {

std::unique_ptr<sdk::agents::EventParser> makeParser(std::string_view name) {
  if (name == "text") return std::make_unique<TextParser>();
  if (name == "jsonl-codex") return std::make_unique<CodexJsonlParser>();
  if (name == "jsonl-claude") return std::make_unique<ClaudeStreamParser>();
  return nullptr;
}

const std::vector<std::string_view>& parserNames() {
  static const std::vector<std::string_view> names{"text", "jsonl-codex", "jsonl-claude"};
  return names;
}

}  // namespace abx::plugins::adapters
