// Byte offsets that do not split a UTF-8 sequence, so text handed to
// clients in pieces (a capped output, a ring read at an offset) does not turn
// a character at a seam into U+FFFD.
#pragma once

#include <cstddef>
#include <string_view>

namespace abx::plugins::process {

/**
 * The length of @p text without a trailing incomplete UTF-8 sequence (a lead
 * byte whose continuation bytes have not all arrived). Invalid bytes count
 * as complete.
 */
std::size_t completeUtf8Length(std::string_view text);

/** The number of UTF-8 continuation bytes at the start of @p text (at most 3). */
std::size_t leadingContinuationBytes(std::string_view text);

/** The largest cut <= @p cut that does not fall inside a sequence (0 stays 0). */
std::size_t utf8SafeCut(std::string_view text, std::size_t cut);

}  // namespace abx::plugins::process
