// Writing the JSON bodies of the system routes: numbers rounded the way the
// reference server's Python round() prints them (25.5, 40.0), and a small
// object builder that keeps member order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::system {

/**
 * @p value rounded to @p decimals places, in the shortest text that reads
 * back as that value, always with a fraction ("40.0", "25.55", "0.1").
 * NaN and infinities become "0.0".
 */
std::string roundedNumber(double value, int decimals);

/** Bytes as GiB (1024^3), rounded to 2 decimals. */
std::string gibNumber(std::uint64_t bytes);

/** Builds `{"a":1,"b":"x"}` in call order; values are JSON text. */
class JsonObject {
 public:
  JsonObject& raw(std::string_view key, std::string_view json_value);
  JsonObject& str(std::string_view key, std::string_view value);
  JsonObject& optStr(std::string_view key, const std::optional<std::string>& value);
  JsonObject& num(std::string_view key, std::int64_t value);
  JsonObject& num(std::string_view key, std::uint64_t value);
  JsonObject& num(std::string_view key, int value) {
    return num(key, static_cast<std::int64_t>(value));
  }
  JsonObject& dec(std::string_view key, double value, int decimals) {
    return raw(key, roundedNumber(value, decimals));
  }
  std::string done();

 private:
  std::string text_ = "{";
};

}  // namespace abx::plugins::system
