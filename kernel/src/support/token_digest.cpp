#include "support/token_digest.h"

#include "abx/sdk/digest.h"

namespace abx::kernel {

bool constantTimeEquals(std::string_view a, std::string_view b) {
  // Walk the expected length every time; a length mismatch is folded into
  // the result instead of returning early.
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < b.size(); ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ static_cast<unsigned char>(b[i]));
  }
  return diff == 0;
}

TokenDigest sha256Digest(std::string_view text) { return sdk::sha256(text); }

}  // namespace abx::kernel
