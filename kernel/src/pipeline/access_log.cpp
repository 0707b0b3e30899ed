#include "pipeline/access_log.h"

#include <cstdio>

#include "abx/sdk/json.h"
#include "support/utc_time.h"

namespace abx::kernel {
namespace {

// A field of a text line: printable ASCII stays, anything a log reader could
// mistake for a field or line boundary (space, quote, control bytes, bytes of
// a multi-byte character) becomes \xHH, so one request is always one line
// with a fixed number of fields. Empty is "-".
void appendField(std::string& line, std::string_view text) {
  if (text.empty()) {
    line += '-';
    return;
  }
  for (const unsigned char c : text) {
    if (c > 0x20 && c < 0x7f && c != '"' && c != '\\') {
      line += static_cast<char>(c);
      continue;
    }
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
    line += escaped;
  }
}

}  // namespace

std::string AccessLog::format(const AccessEntry& e, LogFormat format) {
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.3f", e.duration_ms);
  if (format == LogFormat::json) {
    sdk::JsonWriter line(e.path.size() + e.identity.size() + e.request_id.size() + 192);
    line.beginObject()
        .member("time", utcTimestamp())
        .member("remote", e.remote)
        .member("identity", e.identity)
        .member("method", e.method)
        .member("path", e.path)
        .member("status", e.status)
        .key("duration_ms")
        .raw(duration)
        .member("request_id", e.request_id)
        .member("endpoint", e.endpoint)
        .endObject();
    return line.take() + '\n';
  }
  std::string line;
  line.reserve(e.path.size() + 128);
  appendField(line, e.remote);
  line += ' ';
  appendField(line, e.identity);
  line += " [" + utcTimestamp() + "] \"";
  appendField(line, e.method);
  line += ' ';
  appendField(line, e.path);
  line += "\" " + std::to_string(e.status) + ' ' + duration + ' ';
  appendField(line, e.request_id);
  line += ' ';
  appendField(line, e.endpoint);
  line += '\n';
  return line;
}

void AccessLog::record(const AccessEntry& entry) {
  const std::string line = format(entry, format_);
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), sink_);
  std::fflush(sink_);
}

}  // namespace abx::kernel
