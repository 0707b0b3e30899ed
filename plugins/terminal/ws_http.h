// The HTTP side of the PTY port's WebSocket handshake (RFC 6455 §4), for
// the loop thread that serves the port without POCO Net: where a request's
// head ends, its strict and bounded parse, the checks an upgrade request
// must pass, and the bytes of every answer the port writes (a refusal with
// the usual JSON error body, or 101 Switching Protocols).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/http.h"

namespace abx::plugins::terminal {

/** The most bytes a request head may have (request line and fields); beyond: 431. */
inline constexpr std::size_t kMaxHeadBytes = 16 * 1024;
/** The most header fields a request may have; beyond: 431. */
inline constexpr std::size_t kMaxHeaderFields = 100;

struct HandshakeHead {
  std::string method;
  std::string target; /**< as sent: path and query, still percent-encoded */
  /** Field names lower-case, values without surrounding whitespace, in arrival order. */
  std::vector<std::pair<std::string, std::string>> headers;

  /** The first value of @p lower_name. */
  std::optional<std::string_view> header(std::string_view lower_name) const;
};

struct HeadError {
  int status = 400; /**< 400, 431 (too many fields), 505 (not HTTP/1.x) */
  std::string message;
};

/** Where the head in @p bytes ends: the offset just past its blank line, or npos. */
std::size_t headEnd(std::string_view bytes);

/**
 * Parses @p head (through its blank line; lines end in "\r\n" or "\n").
 * Strict: no obsolete line folding, no whitespace before a colon, no NUL
 * or CR in a value.
 */
std::variant<HandshakeHead, HeadError> parseHandshakeHead(std::string_view head);

/** How a request stands as a WebSocket upgrade (the checks POCO's server made). */
struct UpgradeCheck {
  /** Connection names `upgrade` and Upgrade is `websocket`. */
  bool websocket = false;
  /** Why a WebSocket request cannot be upgraded (answered with 400); empty when it can. */
  std::string error;
  std::string key; /**< Sec-WebSocket-Key */
};
UpgradeCheck checkUpgrade(const HandshakeHead& head);

/** Sec-WebSocket-Accept for @p key: base64(SHA-1(key + the RFC 6455 GUID)). */
std::string webSocketAccept(std::string_view key);

/** The 101 answer that upgrades a request with Sec-WebSocket-Key @p key. */
std::string switchingProtocols(std::string_view key);

/** @p response as a whole HTTP/1.1 answer after which the connection closes. */
std::string httpAnswer(const sdk::Response& response);

}  // namespace abx::plugins::terminal
