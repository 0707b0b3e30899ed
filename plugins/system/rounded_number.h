// How the system routes spell their rounded figures: as the reference
// server's Python round() prints them (25.5, 40.0), written into JsonWriter
// output with raw().
#pragma once

#include <cstdint>
#include <string>

namespace abx::plugins::system {

/**
 * @p value rounded to @p decimals places, in the shortest text that reads
 * back as that value, always with a fraction ("40.0", "25.55", "0.1").
 * NaN and infinities become "0.0".
 */
std::string roundedNumber(double value, int decimals);

/** Bytes as GiB (1024^3), rounded to 2 decimals. */
std::string gibNumber(std::uint64_t bytes);

}  // namespace abx::plugins::system
