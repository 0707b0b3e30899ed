#include "proc_meminfo.h"

#include <map>
#include <string>

#include "proc_text.h"

namespace abx::plugins::system {

double MemInfo::usedPercent() const {
  if (total_kb == 0) return 0.0;
  return static_cast<double>(usedKb()) * 100.0 / static_cast<double>(total_kb);
}

std::optional<MemInfo> parseMeminfo(std::string_view text) {
  std::map<std::string_view, std::uint64_t> values;
  for (std::string_view line : splitLines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    auto fields = splitFields(line.substr(colon + 1));
    // "<number>" (HugePages_Total) or "<number> kB"; anything else is junk.
    if (fields.empty() || fields.size() > 2) continue;
    if (fields.size() == 2 && fields[1] != "kB") continue;
    auto value = parseUnsigned(fields[0]);
    if (!value) continue;
    values.emplace(line.substr(0, colon), *value);  // the first occurrence wins
  }
  auto get = [&](std::string_view key) -> std::optional<std::uint64_t> {
    auto it = values.find(key);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  auto total = get("MemTotal");
  if (!total) return std::nullopt;
  MemInfo info;
  info.total_kb = *total;
  if (auto available = get("MemAvailable")) {
    info.available_kb = *available;
  } else {
    info.available_kb =
        get("MemFree").value_or(0) + get("Buffers").value_or(0) + get("Cached").value_or(0);
  }
  if (info.available_kb > info.total_kb) info.available_kb = info.total_kb;
  return info;
}

std::optional<MemInfo> readMeminfo(const char* path) {
  auto text = readTextFile(path);
  if (!text) return std::nullopt;
  return parseMeminfo(*text);
}

}  // namespace abx::plugins::system
