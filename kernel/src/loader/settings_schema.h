// Checks a plugin's manifest settings against the JSON Schema in its
// descriptor: known keys only (with a did-you-mean hint), scalar types,
// required keys. A plugin never sees settings that fail this.
#pragma once

#include <optional>
#include <string>

#include "abx/sdk/settings.h"

namespace abx::kernel {

/** @return the first problem found, or nullopt. A null schema accepts no settings. */
std::optional<std::string> validateSettings(const char* schema, const sdk::Settings& settings);

}  // namespace abx::kernel
