#include "runtime_types.h"

namespace abx::plugins::agents {

const char* turnStatusName(TurnStatus s) {
  switch (s) {
    case TurnStatus::queued:
      return "queued";
    case TurnStatus::in_progress:
      return "in_progress";
    case TurnStatus::completed:
      return "completed";
    case TurnStatus::failed:
      return "failed";
    case TurnStatus::cancelled:
      break;
  }
  return "cancelled";
}

const char* sessionStatusName(SessionStatus s) {
  switch (s) {
    case SessionStatus::idle:
      return "idle";
    case SessionStatus::in_progress:
      return "in_progress";
    case SessionStatus::failed:
      break;
  }
  return "failed";
}

bool isTerminal(TurnStatus s) {
  return s == TurnStatus::completed || s == TurnStatus::failed || s == TurnStatus::cancelled;
}

void addUsage(sdk::agents::TokenUsage& sum, const sdk::agents::TokenUsage& more) {
  sum.input_tokens += more.input_tokens;
  sum.cached_input_tokens += more.cached_input_tokens;
  sum.output_tokens += more.output_tokens;
  sum.reasoning_tokens += more.reasoning_tokens;
  sum.cost_usd += more.cost_usd;
}

}  // namespace abx::plugins::agents
