// Token digests: what the server keeps of a token (its SHA-256, never the
// token) and the comparison that does not leak where two digests differ.
#pragma once

#include <array>
#include <string_view>

namespace abx::kernel {

using TokenDigest = std::array<unsigned char, 32>;

/** SHA-256 of @p text. */
TokenDigest sha256Digest(std::string_view text);

/** Equal contents, in time that depends only on the lengths. */
bool constantTimeEquals(std::string_view a, std::string_view b);

}  // namespace abx::kernel
