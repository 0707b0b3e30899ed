// ClaudeStreamParser: the Anthropic usage of a Claude Code result line.
#include "claude_stream_parser.h"

namespace abx::plugins::adapters {

std::optional<sdk::agents::TokenUsage> ClaudeStreamParser::resultUsage(const sdk::Json& line) {
  auto u = json::obj(line, "usage");
  sdk::agents::TokenUsage usage;
  // Anthropic counts cache reads and writes apart from input_tokens; the
  // OpenAI wires count them in (cached_tokens is a part of input_tokens).
  usage.cached_input_tokens = json::integer(u, "cache_read_input_tokens").value_or(0);
  usage.input_tokens = json::integer(u, "input_tokens").value_or(0) + usage.cached_input_tokens +
                       json::integer(u, "cache_creation_input_tokens").value_or(0);
  usage.output_tokens = json::integer(u, "output_tokens").value_or(0);
  usage.reasoning_tokens =
      json::integer(json::obj(u, "output_tokens_details"), "thinking_tokens").value_or(0);
  // total_cost_usd is cumulative over the session; the per-invocation figure
  // is the sum over model_usage_since_last_result when Claude sends it.
  usage.cost_usd = json::number(line, "total_cost_usd");
  if (auto since = json::obj(line, "model_usage_since_last_result"); since.isObject()) {
    double cost = 0;
    for (const auto& [model, value] : since.members()) cost += json::number(value, "costUSD");
    usage.cost_usd = cost;
  }
  return usage;
}

}  // namespace abx::plugins::adapters
