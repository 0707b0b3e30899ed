// Byte offsets that do not split a UTF-8 sequence: text handed out in pieces
// (a capped output, a ring read at an offset, the tail of an error message)
// must not turn a character at a seam into U+FFFD. Invalid bytes count as
// characters of their own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::sdk {

/** Since 2.0. The largest cut <= @p cut that does not fall inside a
 *  sequence of @p text (0 stays 0; past the end → text.size()). */
ABX_SDK_API std::size_t utf8SafeCut(std::string_view text, std::size_t cut);

/** Since 2.0. The length of @p text without a trailing incomplete sequence
 *  (a lead byte whose continuation bytes have not all arrived). */
ABX_SDK_API std::size_t completeUtf8Length(std::string_view text);

/** Since 2.0. The continuation bytes at the start of @p text (at most 3). */
ABX_SDK_API std::size_t leadingContinuationBytes(std::string_view text);

/** Since 2.0. The end of a child's message for an error text: trailing line
 *  ends dropped, then the last @p max bytes starting on a character, with
 *  "..." in front when anything was cut. */
ABX_SDK_API std::string messageTail(std::string_view text, std::size_t max);

}  // namespace abx::sdk
