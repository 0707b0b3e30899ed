// The head of one HTTP/1.x request (request line and header fields), for
// whoever reads requests off a socket without an HTTP library: the kernel's
// event loop and a plugin serving a port of its own (the terminal's
// WebSocket handshake). Where a head ends, its strict parse and the reason
// phrase of a status line. The parser is strict where leniency would let two
// parties read one request two ways (smuggling): no obsolete line folding,
// no whitespace before a colon, one Content-Length (Transfer-Encoding is
// the caller's to refuse or serve). Since SDK 2.4.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

struct RequestHead {
  std::string method;
  std::string target;    /**< as sent: path and query, still percent-encoded */
  int minor_version = 1; /**< HTTP/1.<minor> */
  /** Field names as sent, values without surrounding whitespace, in arrival order. */
  std::vector<std::pair<std::string, std::string>> headers;

  /** Every value of @p name (case-insensitive), in order. */
  ABX_SDK_API std::vector<std::string_view> values(std::string_view name) const;
  /** The first value of @p name (case-insensitive). */
  ABX_SDK_API std::optional<std::string_view> header(std::string_view name) const;
  /** The fields with lower-case names: the form Request and AdmissionRequest carry. */
  ABX_SDK_API std::vector<std::pair<std::string, std::string>> lowerCaseHeaders() const;
  /** A value of @p name, read as a comma-separated list, holds @p token (case-insensitive). */
  ABX_SDK_API bool listHas(std::string_view name, std::string_view token) const;
  /** HTTP/1.1 without "Connection: close", or HTTP/1.0 with "keep-alive". */
  ABX_SDK_API bool keepAlive() const;
};

/** Why a head was refused: the status to answer with and a message for the body. */
struct HeadError {
  int status = 400; /**< 400, 414 (target too long), 431 (too many fields), 505 (not HTTP/1.x) */
  std::string message;
};

/** The longest request target parseRequestHead accepts; beyond: 414. */
inline constexpr std::size_t kMaxRequestTarget = 16 * 1024;

/** Where the head in @p bytes ends: the offset just past its blank line, or npos. */
ABX_SDK_API std::size_t headEnd(std::string_view bytes);

/**
 * Parses @p head (through its blank line; lines end in "\r\n" or "\n";
 * empty lines before the request line are ignored). More than @p max_fields
 * header fields: 431. The caller bounds the head's bytes before (431 too).
 * @return the head, or why it is malformed.
 */
ABX_SDK_API std::variant<RequestHead, HeadError> parseRequestHead(std::string_view head,
                                                                  std::size_t max_fields);

/** @p a equals @p b but for ASCII case: how HTTP compares field names and tokens. */
ABX_SDK_API bool equalsIgnoreCase(std::string_view a, std::string_view b);

/** The reason phrase of an HTTP status code ("Not Found"); an unknown code gets its class's. */
ABX_SDK_API std::string_view reasonPhrase(int status);

}  // namespace abx::sdk
