// Random identifiers from the kernel's CSPRNG (getrandom(2)): session ids,
// tickets, resource ids. Never a seeded PRNG, whose next outputs a caller
// could compute from the ones it has seen.
#pragma once

#include <cstddef>
#include <string>

#include "abx/sdk/status.h"

namespace abx::sdk {

/**
 * Since 1.3. @p bytes random bytes as 2*bytes lower-case hex digits. Throws
 * std::system_error only if the kernel has no randomness to give (never
 * after boot).
 */
ABX_SDK_API std::string randomHex(std::size_t bytes);

}  // namespace abx::sdk
