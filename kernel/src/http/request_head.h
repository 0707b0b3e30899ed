// RequestHead: the request line and header fields of one HTTP/1.x request,
// parsed from the bytes the event loop collected up to the blank line. The
// parser is strict where leniency would let two parties read one request
// two ways (smuggling): no obsolete line folding, no whitespace before a
// colon, one Content-Length, no Transfer-Encoding (the pipeline answers
// that with its own error).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace abx::kernel {

struct RequestHead {
  std::string method;
  std::string target;
  int minor_version = 1; /**< HTTP/1.<minor> */
  /** Field names as sent; values with surrounding whitespace removed. */
  std::vector<std::pair<std::string, std::string>> headers;

  /** Every value of @p name (case-insensitive), in order. */
  std::vector<std::string_view> values(std::string_view name) const;
  /** HTTP/1.1 without "Connection: close", or HTTP/1.0 with "keep-alive". */
  bool keepAlive() const;
};

/** Where a request's head ends: the offset just past "\r\n\r\n", or npos. */
std::size_t headEnd(std::string_view bytes);

struct HeadError {
  int status = 400; /**< 400, 414 (target too long), 431 (fields too large), 505 */
  std::string message;
};

/**
 * Parses @p head (through its blank line). Lines may end in "\r\n" or "\n".
 * @return the head, or why it is malformed.
 */
std::pair<std::optional<RequestHead>, HeadError> parseRequestHead(std::string_view head);

inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;
inline constexpr std::size_t kMaxHeaderFields = 200;

}  // namespace abx::kernel
