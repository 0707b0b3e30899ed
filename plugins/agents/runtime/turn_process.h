// TurnProcess: runs one turn's agent CLI (agents spec §6.2) — spawn through
// the SDK's Subprocess (own process group, explicit env), the prompt on
// stdin, stdout split into lines (lines over 4 MiB truncated) for the
// parser, stderr kept as a 16 KiB tail, and a watchdog for the turn timeout,
// the idle timeout (no output bytes), max_output_bytes and cancellation, all
// of which stop the child with the kill ladder on its group. A CLI that
// exited while something it started still holds its stdout (a daemon in
// its own session) ends the turn half a second later: the rest of its group
// and every process holding its pipes are killed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/subprocess.h"

namespace abx::plugins::agents {

struct TurnProcessLimits {
  std::optional<std::chrono::milliseconds> turn_timeout;
  std::optional<std::chrono::milliseconds> idle_timeout;
  std::optional<std::uint64_t> max_output_bytes; /**< stdout + stderr */
  /** RLIMIT_CPU of each of the agent's processes (sdk::ProcessLimits). */
  std::optional<unsigned> cpu_seconds;
  /** turn_timeout is the policy's limits.max_duration_seconds (the smaller of the two). */
  bool timeout_is_max_duration = false;
  std::size_t max_line_bytes = 4u << 20;
  std::size_t stderr_tail_bytes = 16u << 10;
  sdk::KillLadder ladder{std::chrono::milliseconds(5000), std::chrono::milliseconds(3000)};
};

enum class TurnStop {
  exited,        /**< the CLI ended on its own */
  spawn_failed,  /**< could not start (see spawn_error) */
  turn_timeout,  /**< turn_timeout_s passed */
  idle_timeout,  /**< idle_timeout_s passed without output */
  output_limit,  /**< max_output_bytes passed */
  cancelled,     /**< the caller cancelled */
  line_rejected, /**< the line handler threw (see handler_error) */
};

struct TurnProcessOutcome {
  TurnStop stop = TurnStop::exited;
  int exit_code = 0; /**< negative: killed by that signal */
  std::string spawn_error;
  std::string spawn_error_type; /**< FileNotFoundError when the binary is missing */
  std::string handler_error;
  std::string stderr_tail; /**< raw; redact before use */
};

/**
 * Runs the child to its end. @p on_line gets each stdout line (no newline);
 * if it throws, the child is stopped and the outcome says line_rejected.
 * @p cancel is polled at least every 50 ms.
 */
TurnProcessOutcome runTurnProcess(const sdk::SpawnOptions& spawn,
                                  const std::optional<std::string>& stdin_data,
                                  const TurnProcessLimits& limits, const std::atomic<bool>& cancel,
                                  const std::function<void(std::string_view)>& on_line);

}  // namespace abx::plugins::agents
