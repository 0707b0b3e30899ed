// The pump between one WebSocket client and one PTY session (spec §5):
// a started event first, then output frames as the shell writes, input /
// resize / signal frames from the client, and an exited event when the
// shell ends. One thread per connection, one poll() over the socket, the
// PTY master and the shell's pidfd; nothing blocks on a slow side (input
// waits in a bounded buffer, and the client is not read while it is full).
#pragma once

#include <Poco/Net/WebSocket.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "session_table.h"

namespace abx::plugins::terminal {

struct BridgeOptions {
  /** How often the loop looks at the stop flag and attachment when idle. */
  std::chrono::milliseconds tick{200};
  /** A ping goes out after this long without any frame sent (dead peers, NAT). */
  std::chrono::seconds ping_interval{30};
  /** Input accepted but not yet written to the PTY; beyond it the client waits. */
  std::size_t max_pending_input = 256u << 10;
  /** After the shell ended: how long to keep forwarding what it left in the PTY. */
  std::chrono::milliseconds drain_quiet{100};
  std::chrono::milliseconds drain_max{2000};
};

enum class BridgeEnd {
  exited,        /**< the shell ended: exited event sent, closed 1000 */
  client_closed, /**< the client sent a close frame */
  client_gone,   /**< the connection broke */
  replaced,      /**< another client attached to the session */
  stopping       /**< the service is stopping */
};

/** Runs the connection until it ends. Never throws. */
BridgeEnd runBridge(Poco::Net::WebSocket& ws, const std::shared_ptr<Session>& session,
                    const std::atomic<bool>& stopping, const BridgeOptions& options = {});

/**
 * Sends a close frame with @p code and @p reason and waits up to @p wait
 * for the client's close frame (the closing handshake). Never throws.
 */
void closeWebSocket(Poco::Net::WebSocket& ws, std::uint16_t code, std::string_view reason,
                    std::chrono::milliseconds wait = std::chrono::milliseconds(1000));

}  // namespace abx::plugins::terminal
