#include "metrics/series_table.h"

namespace abx::kernel {

std::string_view boundedLabelValue(std::string_view value) {
  std::size_t cut = sdk::Metrics::kMaxLabelValueBytes;
  if (value.size() <= cut) return value;
  // Back to the start of the UTF-8 sequence the cut falls in.
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return value.substr(0, cut);
}

std::size_t hashLabelValues(const std::string_view* values, std::size_t count) {
  std::size_t h = 0x9e3779b97f4a7c15ull;
  for (std::size_t i = 0; i < count; ++i)
    h ^= std::hash<std::string_view>{}(values[i]) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

}  // namespace abx::kernel
