#include "list_page.h"

#include <algorithm>
#include <charconv>

#include "json_text.h"

namespace abx::plugins::agents {

std::variant<std::string, WireError> listPage(const sdk::Request& request, PageItems items) {
  int limit = 20;
  if (auto text = request.queryParam("limit")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
    if (ec != std::errc() || end != text->data() + text->size() || limit < 1 || limit > 100)
      return WireError{400, "limit must be an integer from 1 to 100.", "invalid_request", "limit"};
  }
  const std::string order = std::string(request.queryParam("order").value_or("desc"));
  if (order != "asc" && order != "desc")
    return WireError{400, "order must be 'asc' or 'desc'.", "invalid_request", "order"};
  if (order == "desc") std::reverse(items.begin(), items.end());
  std::size_t start = 0;
  if (auto after = request.queryParam("after")) {
    auto it = std::find_if(items.begin(), items.end(),
                           [&](const auto& item) { return item.first == *after; });
    if (it == items.end())
      return WireError{400, "No item with id '" + std::string(*after) + "' in this list.",
                       "invalid_request", "after"};
    start = static_cast<std::size_t>(it - items.begin()) + 1;
  }
  const std::size_t end = std::min(items.size(), start + static_cast<std::size_t>(limit));
  std::string data = "[";
  for (std::size_t i = start; i < end; ++i) {
    if (data.size() > 1) data += ',';
    data += items[i].second;
  }
  data += ']';
  JsonText body;
  body.str("object", "list").raw("data", data);
  if (start < end)
    body.str("first_id", items[start].first).str("last_id", items[end - 1].first);
  else
    body.null("first_id").null("last_id");
  body.boolean("has_more", end < items.size());
  return body.done();
}

}  // namespace abx::plugins::agents
