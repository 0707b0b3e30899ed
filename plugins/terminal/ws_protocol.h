// The JSON text frames of the PTY WebSocket (spec §5): what a client may
// send (input, resize, signal) and what the server sends (output, events).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace abx::plugins::terminal {

struct InputFrame {
  std::string data;
};
struct ResizeFrame {
  int cols = 0;
  int rows = 0;
};
struct SignalFrame {
  int signal = 0; /**< SIGINT, SIGTERM, SIGKILL, SIGHUP or SIGQUIT */
};

/** A client frame worth acting on; anything else is ignored (spec §5.2). */
using ClientFrame = std::variant<InputFrame, ResizeFrame, SignalFrame>;

/** Terminal sizes accepted from clients (REST and WebSocket alike). */
constexpr int kMinDimension = 1;
constexpr int kMaxDimension = 1000;

/**
 * Parses one text frame. nullopt for invalid JSON, a non-object, an unknown
 * type, missing or mistyped fields, a size outside 1..1000, or a signal name
 * outside the §8.2 map.
 */
std::optional<ClientFrame> parseClientFrame(std::string_view text);

/** The signal number of a §8.2 name ("SIGINT", ...), else nullopt. */
std::optional<int> signalByName(std::string_view name);

/** {"type":"output","data":...}; @p data must be valid UTF-8. */
std::string outputFrame(std::string_view data);
/** {"type":"event","event":"started","session_id":...,"pid":...} */
std::string startedFrame(std::string_view session_id, pid_t pid);
/** {"type":"event","event":"exited","session_id":...[,"exit_code":n]} */
std::string exitedFrame(std::string_view session_id, std::optional<int> exit_code);

}  // namespace abx::plugins::terminal
