#include "list_page.h"

#include <algorithm>
#include <charconv>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {

std::variant<std::string, WireError> listPage(const sdk::Request& request, PageItems items) {
  int limit = 20;
  if (auto text = request.queryParam("limit")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (ec != std::errc() || end != text->data() + text->size() || limit < 1 || limit > 100)
      return WireError{.status = 400,
                       .message = "limit must be an integer from 1 to 100.",
                       .code = "invalid_request",
                       .param = "limit"};
  }
  const std::string order = std::string(request.queryParam("order").value_or("desc"));
  if (order != "asc" && order != "desc")
    return WireError{.status = 400,
                     .message = "order must be 'asc' or 'desc'.",
                     .code = "invalid_request",
                     .param = "order"};
  if (order == "desc") std::reverse(items.begin(), items.end());
  std::size_t start = 0;
  if (auto after = request.queryParam("after")) {
    auto it = std::find_if(items.begin(), items.end(),
                           [&](const auto& item) { return item.first == *after; });
    if (it == items.end())
      return WireError{.status = 400,
                       .message = "No item with id '" + std::string(*after) + "' in this list.",
                       .code = "invalid_request",
                       .param = "after"};
    start = static_cast<std::size_t>(it - items.begin()) + 1;
  }
  const std::size_t end = std::min(items.size(), start + static_cast<std::size_t>(limit));
  std::size_t bytes = 128;
  for (std::size_t i = start; i < end; ++i) bytes += items[i].second.size() + 1;
  sdk::JsonWriter body(bytes);
  body.beginObject().member("object", "list").key("data").beginArray();
  for (std::size_t i = start; i < end; ++i) body.raw(items[i].second);
  body.endArray();
  if (start < end)
    body.member("first_id", items[start].first).member("last_id", items[end - 1].first);
  else
    body.key("first_id").null().key("last_id").null();
  body.member("has_more", end < items.size()).endObject();
  return body.take();
}

std::variant<MetadataFilter, WireError> metadataFilter(const sdk::Request& request) {
  constexpr std::string_view kPrefix = "metadata[";
  MetadataFilter filter;
  for (const auto& [name, value] : request.query) {
    if (!name.starts_with(kPrefix) || !name.ends_with("]")) continue;
    auto key = name.substr(kPrefix.size(), name.size() - kPrefix.size() - 1);
    if (key.empty() || key.size() > 64 || filter.size() == 16)
      return WireError{.status = 400,
                       .message =
                           "A metadata filter takes up to 16 metadata[key]=value pairs, "
                           "keys of 1 to 64 characters.",
                       .code = "invalid_request",
                       .param = "metadata"};
    filter[std::move(key)] = value;
  }
  return filter;
}

bool matchesMetadata(const MetadataFilter& filter,
                     const std::map<std::string, std::string>& metadata) {
  for (const auto& [key, value] : filter) {
    auto it = metadata.find(key);
    if (it == metadata.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace abx::plugins::agents
