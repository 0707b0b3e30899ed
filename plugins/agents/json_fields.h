// The few JSON reads and writes the agents plugin's wires and files share,
// over the SDK's one JSON layer (sdk::Json, sdk::JsonWriter): a field's text
// read leniently (as the wires have always read names, labels and metadata
// values), a string map (metadata) both ways, a client's object echoed with
// its keys sorted, and "a string, or null when empty" (the OpenAI objects'
// optional strings).
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {

/** A string as it is; a number or boolean as its JSON text; absent or null →
 *  @p fallback; an array or object as its compact JSON text. */
inline std::string textOf(const sdk::Json& value, std::string_view fallback = {}) {
  if (value.isString()) return std::string(value.stringView());
  if (value.isAbsent()) return std::string(fallback);
  return value.dump();
}

/** The members of an object, each read with textOf() (empty for a non-object). */
inline std::map<std::string, std::string> textMap(const sdk::Json& object) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : object.members()) out[key] = textOf(value);
  return out;
}

/** The members of an object sorted by key (the order the wires have always echoed them in). */
inline std::vector<std::pair<std::string, sdk::Json>> sortedMembers(const sdk::Json& object) {
  auto members = object.members();
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return members;
}

/** @p value as it was sent, with the members of every object in key order
 *  (how the wires have always echoed a client's objects). */
inline void writeKeysSorted(sdk::JsonWriter& w, const sdk::Json& value) {
  if (value.isObject()) {
    w.beginObject();
    for (const auto& [key, member] : sortedMembers(value)) {
      w.key(key);
      writeKeysSorted(w, member);
    }
    w.endObject();
  } else if (value.isArray()) {
    w.beginArray();
    for (const auto& element : value.elements()) writeKeysSorted(w, element);
    w.endArray();
  } else {
    w.value(value);
  }
}

inline void writeTextMap(sdk::JsonWriter& w, const std::map<std::string, std::string>& map) {
  w.beginObject();
  for (const auto& [key, value] : map) w.member(key, value);
  w.endObject();
}

/** @p text as a JSON string, or null when it is empty. */
inline void writeTextOrNull(sdk::JsonWriter& w, std::string_view text) {
  text.empty() ? w.null() : w.value(text);
}

}  // namespace abx::plugins::agents
