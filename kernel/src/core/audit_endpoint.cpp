#include "core/audit_endpoint.h"

#include <charconv>
#include <string>

#include "abx/sdk/json.h"

namespace abx::kernel {
namespace {

constexpr std::size_t kDefaultLimit = 50;

}  // namespace

sdk::Response auditRecent(const AuditRing& ring, const sdk::Request& request) {
  std::size_t limit = kDefaultLimit;
  if (auto text = request.queryParam("limit")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (ec != std::errc() || end != text->data() + text->size() || limit < 1 ||
        limit > ring.capacity())
      return sdk::Response::error(
          400,
          "Query parameter 'limit' must be an integer from 1 to " + std::to_string(ring.capacity()),
          "ValueError");
  }
  const auto records = ring.newest(limit);
  std::size_t bytes = 64;
  for (const auto& r : records) bytes += r.size() + 1;
  sdk::JsonWriter w(bytes);
  w.beginObject().key("records").beginArray();
  // Each record is the audit line's own JSON object, written by AuditLog.
  for (const auto& r : records) w.raw(r);
  w.endArray().member("capacity", static_cast<std::uint64_t>(ring.capacity())).endObject();
  return sdk::Response::json(w.take());
}

}  // namespace abx::kernel
