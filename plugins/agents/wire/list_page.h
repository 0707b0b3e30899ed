// ListPage: the cursor pagination every /v1 list shares (openai-wire.md §3):
// `after` (exclusive, an item id), `limit` 1..100 (default 20), `order`
// asc|desc (default desc), and the body {object, data, first_id, last_id,
// has_more}; and the `metadata[key]=value` filter of the lists whose
// objects carry metadata.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/http.h"
#include "openai_error.h"

namespace abx::plugins::agents {

/** An item's id and its JSON text, in ascending (oldest first) order. */
using PageItems = std::vector<std::pair<std::string, std::string>>;

/** The page @p request asks for, or the 400 to send for a bad limit/order/after. */
std::variant<std::string, WireError> listPage(const sdk::Request& request, PageItems items);

/** The pairs a list must match, from `metadata[key]=value` query parameters. */
using MetadataFilter = std::map<std::string, std::string>;

/** @p request's filter (empty: every item), or the 400 of a bad one (over 16 pairs, a key
 * not 1..64). */
std::variant<MetadataFilter, WireError> metadataFilter(const sdk::Request& request);

/** Whether @p metadata holds every pair of @p filter. */
bool matchesMetadata(const MetadataFilter& filter,
                     const std::map<std::string, std::string>& metadata);

}  // namespace abx::plugins::agents
