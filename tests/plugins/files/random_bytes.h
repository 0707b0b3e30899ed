// Reproducible random bytes for the files plugin's tests.
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace abx::testing {

/** @p n bytes from a Mersenne twister seeded with @p seed. */
inline std::string randomBytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

}  // namespace abx::testing
