// Lenient JSON member reads for the agent output parsers.
#include "json_reads.h"

#include <cmath>

namespace abx::plugins::adapters::json {
namespace {}  // namespace

sdk::Json parseObject(std::string_view line) {
  auto parsed = sdk::Json::parse(line);
  if (!parsed || !parsed->isObject()) return sdk::Json::missing();
  return std::move(parsed).value();
}

std::string str(const sdk::Json& o, std::string_view key) {
  return std::string(o.get(key).stringView());
}

sdk::Json obj(const sdk::Json& o, std::string_view key) {
  sdk::Json v = o.get(key);
  if (v.isObject()) return v;
  return sdk::Json::missing();
}

sdk::Json arr(const sdk::Json& o, std::string_view key) {
  sdk::Json v = o.get(key);
  if (v.isArray()) return v;
  return sdk::Json::missing();
}

std::optional<std::int64_t> integer(const sdk::Json& o, std::string_view key) {
  const sdk::Json v = o.get(key);
  if (v.kind() == sdk::JsonKind::integer) {
    auto i = v.asInteger();  // an error beyond int64
    return i ? std::optional<std::int64_t>(*i) : std::nullopt;
  }
  if (v.kind() != sdk::JsonKind::number) return std::nullopt;
  const double d = *v.asNumber();
  // A whole double that fits int64 (2^63 is the first one that does not).
  if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 &&
      d < 9223372036854775808.0)
    return static_cast<std::int64_t>(d);
  return std::nullopt;
}

double number(const sdk::Json& o, std::string_view key) {
  auto v = o.get(key).asNumber(0.0);
  return v ? *v : 0.0;
}

bool flag(const sdk::Json& o, std::string_view key) {
  auto v = o.get(key).asBoolean(false);
  return v && *v;
}

std::string dump(const sdk::Json& o, std::string_view key) {
  const sdk::Json v = o.get(key);
  return v.isAbsent() ? std::string() : v.dump();
}

std::string dump(const sdk::Json& o) { return o.isObject() ? o.dump() : "{}"; }

std::string text(const sdk::Json& o, std::string_view key) {
  const sdk::Json v = o.get(key);
  if (v.isAbsent()) return {};
  return v.isString() ? std::string(v.stringView()) : v.dump();
}

}  // namespace abx::plugins::adapters::json
