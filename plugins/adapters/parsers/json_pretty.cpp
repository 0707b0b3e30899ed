// prettyJson(): indented JSON text over the SDK's parsed values.
#include "json_pretty.h"

namespace abx::plugins::adapters {
namespace {

void appendPretty(std::string& out, const sdk::Json& value, std::size_t depth) {
  const bool object = value.isObject();
  if ((!object && !value.isArray()) || value.size() == 0) {
    out += value.dump();  // scalars, {} and []
    return;
  }
  const std::string inner(2 * (depth + 1), ' ');
  out += object ? "{\n" : "[\n";
  bool first = true;
  auto nextItem = [&] {
    if (!first) out += ",\n";
    first = false;
    out += inner;
  };
  if (object) {
    for (const auto& [key, member] : value.members()) {
      nextItem();
      sdk::appendJsonQuoted(out, key);
      out += ": ";
      appendPretty(out, member, depth + 1);
    }
  } else {
    for (const auto& element : value.elements()) {
      nextItem();
      appendPretty(out, element, depth + 1);
    }
  }
  out += '\n';
  out.append(2 * depth, ' ');
  out += object ? '}' : ']';
}

}  // namespace

std::string prettyJson(const sdk::Json& value) {
  std::string out;
  appendPretty(out, value, 0);
  return out;
}

}  // namespace abx::plugins::adapters
