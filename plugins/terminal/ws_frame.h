// WebSocket framing (RFC 6455 §5) for the PTY port's loop thread, which
// never blocks on a socket: client frames are parsed incrementally from
// whatever bytes a non-blocking read brought, server frames are encoded into
// bytes the loop queues and sends when the socket takes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace abx::plugins::terminal {

// A frame's first byte: FIN and the opcode (RFC 6455 §5.2).
inline constexpr int kFin = 0x80;
inline constexpr int kOpcodeMask = 0x0F;
enum WsOpcode : int {
  kOpContinuation = 0x0,
  kOpText = 0x1,
  kOpBinary = 0x2,
  kOpClose = 0x8,
  kOpPing = 0x9,
  kOpPong = 0xA
};

// Close codes (RFC 6455 §7.4.1).
enum WsCloseCode : std::uint16_t {
  kCloseNormal = 1000,
  kCloseGoingAway = 1001,
  kClosePolicyViolation = 1008,
  kCloseTooBig = 1009
};

/** One complete frame: its first byte (FIN, RSV and opcode) and its unmasked payload. */
struct WsFrame {
  int flags = 0;
  std::string payload;
};

/** THREAD: one owner. */
class WsFrameReader {
 public:
  /** @p max_payload: a frame announcing more ends the stream (too_big). */
  explicit WsFrameReader(std::size_t max_payload) : max_payload_(max_payload) {}

  void append(const char* data, std::size_t size);

  enum class Status {
    frame,      /**< @p out holds the next frame, consumed from the buffer */
    incomplete, /**< more bytes are needed */
    too_big     /**< the next frame's payload exceeds the limit; the stream is lost */
  };
  Status next(WsFrame& out);

  /** Bytes received but not yet returned as frames. */
  std::size_t buffered() const { return buffer_.size() - offset_; }

 private:
  std::size_t max_payload_;
  std::string buffer_;
  std::size_t offset_ = 0;
};

/** A server frame (never masked) with first byte @p flags, e.g. FIN | TEXT. */
std::string encodeFrame(int flags, std::string_view payload);

/** A close frame's payload: the code (big-endian) and the reason. */
std::string closePayload(std::uint16_t code, std::string_view reason);

}  // namespace abx::plugins::terminal
