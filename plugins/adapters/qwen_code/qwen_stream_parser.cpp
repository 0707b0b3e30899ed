// QwenStreamParser: the per-turn usage of Qwen Code's stream-json.
#include "qwen_stream_parser.h"

namespace abx::plugins::adapters {

using sdk::agents::TokenUsage;

namespace {

TokenUsage readUsage(const sdk::Json& u) {
  TokenUsage usage;
  usage.input_tokens = json::integer(u, "input_tokens").value_or(0);
  usage.cached_input_tokens = json::integer(u, "cache_read_input_tokens").value_or(0);
  usage.output_tokens = json::integer(u, "output_tokens").value_or(0);
  return usage;
}

}  // namespace

// An unknown --resume id prints only to stderr; the runtime classifies it.
QwenStreamParser::QwenStreamParser(std::optional<std::string> resumed_session,
                                   TokenUsage earlier_usage)
    : StreamJsonParser(
          {.tool_output = false, .no_result_text = "qwen exited without a result line"}),
      resumed_session_(std::move(resumed_session)),
      earlier_usage_(earlier_usage) {}

void QwenStreamParser::onAssistantMessage(const sdk::Json& message) {
  // Only the last block of each API response carries non-zero usage.
  TokenUsage call = readUsage(json::obj(message, "usage"));
  call_usage_.input_tokens += call.input_tokens;
  call_usage_.cached_input_tokens += call.cached_input_tokens;
  call_usage_.output_tokens += call.output_tokens;
}

std::optional<TokenUsage> QwenStreamParser::resultUsage(const sdk::Json& line) {
  TokenUsage cumulative = readUsage(json::obj(line, "usage"));
  if (!resumed_session_ || resumed_session_->empty()) return cumulative;
  const bool same_session = sessionId().empty() || sessionId() == *resumed_session_;
  const bool consistent = cumulative.input_tokens >= earlier_usage_.input_tokens &&
                          cumulative.output_tokens >= earlier_usage_.output_tokens &&
                          cumulative.cached_input_tokens >= earlier_usage_.cached_input_tokens;
  if (!same_session || !consistent) return call_usage_;
  TokenUsage usage;
  usage.input_tokens = cumulative.input_tokens - earlier_usage_.input_tokens;
  usage.cached_input_tokens = cumulative.cached_input_tokens - earlier_usage_.cached_input_tokens;
  usage.output_tokens = cumulative.output_tokens - earlier_usage_.output_tokens;
  return usage;
}

}  // namespace abx::plugins::adapters
