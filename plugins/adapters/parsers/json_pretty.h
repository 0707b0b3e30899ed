// prettyJson(): a JSON value as indented text, for the config files the
// adapters write into a workspace or turn directory (a person may open
// them). Two spaces per level and `"key": value`, the layout these files
// always had. The SDK writes compact JSON only.
#pragma once

#include <string>

#include "abx/sdk/json.h"

namespace abx::plugins::adapters {

/** @p value indented by two spaces per level; empty containers stay `{}` / `[]`. No final newline.
 */
std::string prettyJson(const sdk::Json& value);

}  // namespace abx::plugins::adapters
