#include "rounded_number.h"

#include <charconv>
#include <cmath>

namespace abx::plugins::system {

std::string roundedNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "0.0";
  const double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale;
  if (rounded == 0.0) rounded = 0.0;  // no "-0.0"
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, rounded);
  if (ec != std::errc()) return "0.0";
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string gibNumber(std::uint64_t bytes) {
  return roundedNumber(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 2);
}

}  // namespace abx::plugins::system
