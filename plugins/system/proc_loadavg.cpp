#include "proc_loadavg.h"

#include <cstdlib>

#include "proc_text.h"

namespace abx::plugins::system {

std::optional<LoadAverage> parseLoadavg(std::string_view text) {
  auto fields = splitFields(text.substr(0, text.find('\n')));
  if (fields.size() < 3) return std::nullopt;
  auto one = parseDecimal(fields[0]);
  auto five = parseDecimal(fields[1]);
  auto fifteen = parseDecimal(fields[2]);
  if (!one || !five || !fifteen) return std::nullopt;
  return LoadAverage{*one, *five, *fifteen};
}

std::optional<LoadAverage> readLoadavg(const char* path) {
  if (auto text = readTextFile(path))
    if (auto parsed = parseLoadavg(*text)) return parsed;
  double values[3];
  if (::getloadavg(values, 3) != 3) return std::nullopt;
  return LoadAverage{values[0], values[1], values[2]};
}

}  // namespace abx::plugins::system
