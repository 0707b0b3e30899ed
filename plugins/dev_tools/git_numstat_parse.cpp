#include "git_numstat_parse.h"

#include <charconv>

#include "abx/sdk/json.h"
#include "nul_fields.h"

namespace abx::plugins::dev_tools {
namespace {

sdk::Status malformed(std::string_view record) {
  return sdk::Status::error("Unexpected git numstat record: " + std::string(record), "ValueError");
}

/** "-" (binary) or a decimal count. */
bool readCount(std::string_view text, std::uint64_t& value, bool& binary) {
  if (text == "-") {
    binary = true;
    value = 0;
    return true;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

sdk::Result<DiffStats> parseNumstat(std::string_view output) {
  DiffStats stats;
  NulFields fields(output);
  while (auto record = fields.next()) {
    // A stray newline between records (some git versions end with one).
    if (*record == "\n" || record->empty()) continue;
    auto tab1 = record->find('\t');
    auto tab2 = tab1 == std::string_view::npos ? tab1 : record->find('\t', tab1 + 1);
    if (tab2 == std::string_view::npos) return malformed(*record);
    FileStat file;
    bool binary_added = false, binary_deleted = false;
    if (!readCount(record->substr(0, tab1), file.insertions, binary_added) ||
        !readCount(record->substr(tab1 + 1, tab2 - tab1 - 1), file.deletions, binary_deleted))
      return malformed(*record);
    file.binary = binary_added || binary_deleted;
    auto name = record->substr(tab2 + 1);
    if (name.empty()) {
      auto from = fields.next();
      auto to = from ? fields.next() : std::nullopt;
      if (!to) return malformed(*record);
      file.original_path = std::string(*from);
      file.path = std::string(*to);
    } else {
      file.path = std::string(name);
    }
    stats.insertions += file.insertions;
    stats.deletions += file.deletions;
    stats.files.push_back(std::move(file));
  }
  return stats;
}

std::string statsJson(const DiffStats& stats) {
  return sdk::JsonWriter()
      .beginObject()
      .member("files_changed", stats.files.size())
      .member("insertions", stats.insertions)
      .member("deletions", stats.deletions)
      .endObject()
      .take();
}

std::string fileStatsJson(const DiffStats& stats) {
  sdk::JsonWriter w;
  w.beginArray();
  for (const auto& f : stats.files) {
    w.beginObject()
        .member("path", f.path)
        .member("insertions", f.insertions)
        .member("deletions", f.deletions)
        .member("binary", f.binary)
        .optionalMember("original_path", f.original_path)
        .endObject();
  }
  return w.endArray().take();
}

}  // namespace abx::plugins::dev_tools
