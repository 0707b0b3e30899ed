// libFuzzer target for the SDK's JSON layer (plugin-sdk/src/json*.cpp).
// Built and run by tests/fuzz/run.sh json with
// -fsanitize=fuzzer,address,undefined.
//
// The input is a document. Whatever it is, parsing must not crash, overflow
// the stack or read past the input (the input is copied into a block of its
// own size). When it parses:
//   - dump() parses again and is a fixed point (dump(parse(dump)) == dump);
//   - the dump is valid UTF-8 with no raw control character;
//   - walking every value with get/at/elements/members and the typed reads
//     agrees with kind(), and JsonWriter re-writing the walk equals dump().
// Any disagreement aborts with a message.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "abx/sdk/json.h"

namespace {

using abx::sdk::Json;
using abx::sdk::JsonKind;
using abx::sdk::JsonWriter;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "invariant violated: %s\n", what);
  std::abort();
}

bool validText(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = s[i];
    if (c < 0x20) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > text.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((s[i + k] & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

// Re-writes @p value through JsonWriter using only the public reads.
void rewrite(const Json& value, JsonWriter& out, int depth) {
  if (depth > 300) violated("deeper than the parser allows");
  switch (value.kind()) {
    case JsonKind::object:
      out.beginObject();
      for (const auto& [key, member] : value.members()) {
        if (member.isMissing()) violated("a listed member is missing");
        out.key(key);
        rewrite(member, out, depth + 1);
      }
      out.endObject();
      return;
    case JsonKind::array: {
      out.beginArray();
      const auto elements = value.elements();
      if (elements.size() != value.size()) violated("elements() and size() disagree");
      for (const auto& element : elements) rewrite(element, out, depth + 1);
      if (!value.at(value.size()).isMissing()) violated("at(size()) is not missing");
      out.endArray();
      return;
    }
    case JsonKind::string:
      if (!value.asString().isOk() || *value.asString() != value.stringView())
        violated("asString and stringView disagree");
      out.value(value.stringView());
      return;
    case JsonKind::integer:
    case JsonKind::number:
      if (!value.asNumber().isOk()) violated("a number that asNumber refuses");
      out.raw(value.dump());  // numbers keep their spelling
      return;
    case JsonKind::boolean:
      out.value(*value.asBoolean());
      return;
    case JsonKind::null:
      if (value.asString().isOk()) violated("null read as a string");
      out.null();
      return;
    case JsonKind::missing:
      violated("a missing value inside a document");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto copy = std::make_unique<char[]>(size == 0 ? 1 : size);
  if (size != 0) std::memcpy(copy.get(), data, size);
  auto parsed = Json::parse(std::string_view(copy.get(), size));
  if (!parsed.isOk()) {
    if (parsed.status().message().rfind("Invalid JSON: ", 0) != 0) violated("error prefix");
    return 0;
  }
  const std::string dump = parsed->dump();
  if (!validText(dump)) violated("dump is not valid UTF-8 text");
  auto again = Json::parse(dump);
  if (!again.isOk()) violated("dump does not parse");
  if (again->dump() != dump) violated("dump is not a fixed point");
  JsonWriter writer;
  rewrite(*parsed, writer, 0);
  if (writer.text() != dump) violated("JsonWriter's rewrite differs from dump");
  return 0;
}
