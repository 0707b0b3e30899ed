// Random identifiers from the kernel's CSPRNG (getrandom(2)).
#pragma once

#include <cstddef>
#include <string>

namespace abx::plugins::terminal {

/** @p bytes random bytes as 2*bytes lower-case hex digits. Throws std::system_error
 *  only if the kernel has no randomness to give (never after boot). */
std::string randomHex(std::size_t bytes);

}  // namespace abx::plugins::terminal
