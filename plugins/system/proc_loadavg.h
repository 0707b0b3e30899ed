// /proc/loadavg: the 1, 5 and 15 minute load averages of GET /system/metrics.
#pragma once

#include <optional>
#include <string_view>

namespace abx::plugins::system {

struct LoadAverage {
  double one = 0;
  double five = 0;
  double fifteen = 0;
};

/** Parses "0.15 0.10 0.05 1/123 4567"; nullopt unless the first three fields are numbers. */
std::optional<LoadAverage> parseLoadavg(std::string_view text);

/** Reads /proc/loadavg (or @p path); falls back to getloadavg(3). */
std::optional<LoadAverage> readLoadavg(const char* path = "/proc/loadavg");

}  // namespace abx::plugins::system
