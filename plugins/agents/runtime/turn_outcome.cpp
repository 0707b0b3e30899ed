#include "turn_outcome.h"

#include <string.h>

#include <string>

#include "turn_hard_limits.h"

namespace abx::plugins::agents {
namespace {

std::string failureMessageFor(TurnStop stop, const sdk::agents::AgentSpec& spec) {
  auto seconds = [](const std::optional<double>& v) {
    auto text = std::to_string(v.value_or(0));
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  };
  switch (stop) {
    case TurnStop::turn_timeout:
      return "turn timed out after " + seconds(spec.limits.turn_timeout_s) + " s";
    case TurnStop::idle_timeout:
      return "agent produced no output for " + seconds(spec.limits.idle_timeout_s) + " s";
    case TurnStop::output_limit:
      return "agent output passed max_output_bytes (" +
             std::to_string(spec.limits.max_output_bytes.value_or(0)) + ")";
    default:
      return {};
  }
}

// A CLI that exited: completed when it exited 0 and reported no failure;
// else classified on everything it said: its stderr and the error it
// reported on stdout (claude reports a bad key only there).
TurnVerdict exitedVerdict(const TurnLaunch& launch, const TurnProcessOutcome& outcome,
                          const std::optional<TurnError>& reported) {
  if (outcome.exit_code == 0 && !reported) return {TurnStatus::completed, std::nullopt};
  const auto& redaction = *launch.redaction;
  std::string said = redaction.redact(outcome.stderr_tail);
  if (reported) said += "\n" + reported->message;
  auto info = launch.adapter().classifyFailure(outcome.exit_code, said);
  if (reported && reported->code != "internal_error") return {TurnStatus::failed, *reported};
  if (info.code == "internal_error" && reported)
    return {TurnStatus::failed, TurnError{info.code, reported->message}};
  return {TurnStatus::failed, TurnError{info.code, redaction.redact(info.message)}};
}

// A CLI that died of a signal (a crash) says so first, whatever else it
// said; one that said nothing still gets a message naming its exit.
TurnVerdict withExitNamed(TurnVerdict verdict, int exit_code) {
  if (!verdict.error) return verdict;
  auto& message = verdict.error->message;
  if (exit_code < 0) {
    const char* name = ::sigabbrev_np(-exit_code);
    std::string what = "agent CLI was killed by signal " + std::to_string(-exit_code);
    if (name) what += std::string(" (SIG") + name + ")";
    message = message.empty() ? what : what + "; " + message;
  } else if (message.empty()) {
    message = "agent CLI exited with status " + std::to_string(exit_code);
  }
  return verdict;
}

}  // namespace

TurnVerdict classifyTurnOutcome(const TurnLaunch& launch, const TurnProcessOutcome& outcome,
                                const std::optional<TurnError>& reported) {
  const auto& redaction = *launch.redaction;
  auto failed = [](std::string code, std::string message) {
    return TurnVerdict{TurnStatus::failed, TurnError{std::move(code), std::move(message)}};
  };
  if (auto limit = hardLimitFailure(launch.spec(), launch.limits, outcome))
    return {TurnStatus::failed, std::move(limit)};
  switch (outcome.stop) {
    case TurnStop::cancelled:
      return {TurnStatus::cancelled, std::nullopt};
    case TurnStop::spawn_failed:
      if (outcome.spawn_error_type == "FileNotFoundError")
        return failed("runtime_not_installed", "agent CLI '" + launch.spawn.argv.front() +
                                                   "' is not installed (not found on PATH)");
      return failed("sandbox_error", redaction.redact(outcome.spawn_error));
    case TurnStop::turn_timeout:
    case TurnStop::idle_timeout:
      return failed("request_timeout", failureMessageFor(outcome.stop, launch.spec()));
    case TurnStop::output_limit:
      return failed("output_limit_exceeded", failureMessageFor(outcome.stop, launch.spec()));
    case TurnStop::line_rejected:
      return failed("internal_error", "the " + launch.adapter().name() + " output parser failed: " +
                                          redaction.redact(outcome.handler_error));
    case TurnStop::exited:
      break;
  }
  return withExitNamed(exitedVerdict(launch, outcome, reported), outcome.exit_code);
}

}  // namespace abx::plugins::agents
