#include "json_text.h"

#include <charconv>
#include <cmath>

#include "abx/sdk/json.h"

namespace abx::plugins::system {

std::string roundedNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "0.0";
  const double scale = std::pow(10.0, decimals);
  double rounded = std::round(value * scale) / scale;
  if (rounded == 0.0) rounded = 0.0;  // no "-0.0"
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, rounded);
  if (ec != std::errc()) return "0.0";
  std::string text(buffer, end);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string gibNumber(std::uint64_t bytes) {
  return roundedNumber(static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0), 2);
}

JsonObject& JsonObject::raw(std::string_view key, std::string_view json_value) {
  if (text_.size() > 1) text_ += ',';
  text_ += sdk::jsonQuote(key);
  text_ += ':';
  text_ += json_value;
  return *this;
}

JsonObject& JsonObject::str(std::string_view key, std::string_view value) {
  return raw(key, sdk::jsonQuote(value));
}

JsonObject& JsonObject::optStr(std::string_view key, const std::optional<std::string>& value) {
  return value ? str(key, *value) : raw(key, "null");
}

JsonObject& JsonObject::num(std::string_view key, std::int64_t value) {
  return raw(key, std::to_string(value));
}

JsonObject& JsonObject::num(std::string_view key, std::uint64_t value) {
  return raw(key, std::to_string(value));
}

std::string JsonObject::done() {
  text_ += '}';
  return std::move(text_);
}

}  // namespace abx::plugins::system
