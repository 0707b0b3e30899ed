// Lenient reads from one parsed CLI output line (the SDK's Json): a missing
// member or one of an unexpected type reads as empty, because agent CLIs add,
// drop and retype fields between versions and a parser must not fail on that.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/json.h"

namespace abx::plugins::adapters::json {

/** One line as a JSON object; a missing value (isObject() false) when it is not one. */
sdk::Json parseObject(std::string_view line);

/** A string member ("" when absent or not a string). */
std::string str(const sdk::Json& o, std::string_view key);
/** An object member; a missing value when absent or not an object (test with isObject()). */
sdk::Json obj(const sdk::Json& o, std::string_view key);
/** An array member; a missing value when absent or not an array (test with isArray()). */
sdk::Json arr(const sdk::Json& o, std::string_view key);
/** An integral member (a whole double counts); nullopt when absent, null or not one. */
std::optional<std::int64_t> integer(const sdk::Json& o, std::string_view key);
/** A number member; 0 when absent or not a number. */
double number(const sdk::Json& o, std::string_view key);
/** True only for a member that is the boolean true. */
bool flag(const sdk::Json& o, std::string_view key);
/** A member as compact JSON text ("" when absent or null); strings stay quoted. */
std::string dump(const sdk::Json& o, std::string_view key);
/** @p o as compact JSON text; "{}" when it is not an object. */
std::string dump(const sdk::Json& o);
/** A string member as is, any other member as compact JSON ("" when absent or null). */
std::string text(const sdk::Json& o, std::string_view key);

}  // namespace abx::plugins::adapters::json
