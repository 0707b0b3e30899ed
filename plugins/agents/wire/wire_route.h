// What every /v1 route file of the agents plugin shares (each registers its
// table with sdk::addSharedRoutes): the wall clock the objects' timestamps use, a cursor page (or
// its 400) as a reply, and the answer to a DELETE.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/routes.h"
#include "list_page.h"
#include "openai_error.h"

namespace abx::plugins::agents {

/** Unix seconds (created_at and friends). */
inline std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/** listPage() as the reply: the page, or the envelope of its 400. */
inline sdk::Response pageResponse(const sdk::Request& request, PageItems items) {
  auto page = listPage(request, std::move(items));
  if (auto* error = std::get_if<WireError>(&page)) return openAiError(*error);
  return sdk::Response::json(std::get<std::string>(page));
}

/** The answer to a DELETE: {"id", "object": @p object, "deleted": true}. */
inline sdk::Response deletedResponse(std::string_view id, std::string_view object) {
  sdk::JsonWriter w(id.size() + object.size() + 48);
  w.beginObject().member("id", id).member("object", object).member("deleted", true).endObject();
  return sdk::Response::json(w.take());
}

}  // namespace abx::plugins::agents
