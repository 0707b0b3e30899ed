// The HTTP side of the PTY port's WebSocket handshake (RFC 6455 §4), for
// the loop thread that serves the port without POCO Net: the bounds of a
// request's head (read with the SDK's parser, http_head.h), the checks an
// upgrade request must pass, and the bytes of every answer the port writes
// (a refusal with the usual JSON error body, or 101 Switching Protocols).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "abx/sdk/http.h"
#include "abx/sdk/http_head.h"

namespace abx::plugins::terminal {

/** The most bytes a request head may have (request line and fields); beyond: 431. */
inline constexpr std::size_t kMaxHeadBytes = 16 * 1024;
/** The most header fields a request may have; beyond: 431. */
inline constexpr std::size_t kMaxHeaderFields = 100;

/** How a request stands as a WebSocket upgrade (the checks POCO's server made). */
struct UpgradeCheck {
  /** Connection names `upgrade` and Upgrade is `websocket`. */
  bool websocket = false;
  /** Why a WebSocket request cannot be upgraded (answered with 400); empty when it can. */
  std::string error;
  std::string key; /**< Sec-WebSocket-Key */
};
UpgradeCheck checkUpgrade(const sdk::RequestHead& head);

/** Sec-WebSocket-Accept for @p key: base64(SHA-1(key + the RFC 6455 GUID)). */
std::string webSocketAccept(std::string_view key);

/** The 101 answer that upgrades a request with Sec-WebSocket-Key @p key. */
std::string switchingProtocols(std::string_view key);

/** @p response as a whole HTTP/1.1 answer after which the connection closes. */
std::string httpAnswer(const sdk::Response& response);

}  // namespace abx::plugins::terminal
