// Since 2.5. The text codecs every part of the server shares: base64
// (RFC 4648) and percent-encoding (RFC 3986). Before, the kernel, the
// terminal's port, the browser and the agents each carried one of their
// own or borrowed one from a library they linked for nothing else.
// (The files plugin's streaming, vectorised base64 coder for large bodies
// is its own: it decodes pieces as they arrive.)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** Standard alphabet, padded. */
ABX_SDK_API std::string base64Encode(std::string_view bytes);

/**
 * Standard or URL-safe alphabet, padding optional (but never more than
 * needed), no white space: nullopt for anything else, including a last
 * character whose unused bits are not zero.
 */
ABX_SDK_API std::optional<std::string> base64Decode(std::string_view text);

/** RFC 3986 unreserved characters as they are, every other byte as %XX (upper-case hex). */
ABX_SDK_API std::string percentEncode(std::string_view in);

/** Decodes %XX escapes into @p out; false on a malformed escape. */
ABX_SDK_API bool percentDecode(std::string_view in, std::string& out);

/**
 * A query string (after the '?', before any '#') as its name/value pairs in
 * order: split at '&' (empty pieces skipped) and the first '=', '+' read as
 * a space, then %XX escapes. nullopt on a malformed escape.
 */
ABX_SDK_API std::optional<std::vector<std::pair<std::string, std::string>>> decodeQuery(
    std::string_view query);

}  // namespace abx::sdk
