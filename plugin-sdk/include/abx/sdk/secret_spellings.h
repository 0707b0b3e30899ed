// The spellings of one secret value that redaction looks for: raw,
// URL-encoded and JSON-escaped (a secret in a log line, a URL or a JSON body). `Bearer <secret>`
// needs no spelling of its own: the raw spelling already matches inside it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** Percent-encoding as JavaScript's encodeURIComponent does it (uppercase hex, UTF-8 bytes). */
ABX_SDK_API std::string encodeUriComponent(std::string_view value);

struct JsonEscapeStyle {
  bool escape_slash = false;  /**< "/" as "\/" (POCO writes this) */
  bool uppercase_hex = false; /**< "\u001B" rather than "\u001b" */
  bool ascii_only = false;    /**< non-ASCII as \uXXXX (Python's json.dumps default) */
};

/**
 * @p value as it appears between the quotes of a JSON string: \" \\ \b \f \n
 * \r \t, other control characters as \u00XX, per @p style.
 */
ABX_SDK_API std::string jsonEscape(std::string_view value, JsonEscapeStyle style = {});

/**
 * Every distinct spelling of @p secret: raw, encodeURIComponent (upper- and
 * lowercase hex), and the JSON-escaped forms of all JsonEscapeStyle choices.
 */
ABX_SDK_API std::vector<std::string> secretSpellings(std::string_view secret);

}  // namespace abx::sdk
