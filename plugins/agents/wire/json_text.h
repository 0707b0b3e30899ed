// JsonText: builds one compact JSON object by appending members. The wires
// build every event this way because the hot path (one text delta per
// event, hundreds of thousands a second) cannot afford a DOM per event.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "abx/sdk/json.h"

namespace abx::plugins::agents {

class JsonText {
 public:
  JsonText() : text_("{") {}

  JsonText& str(std::string_view key, std::string_view value) {
    return raw(key, sdk::jsonQuote(value));
  }
  /** A string, or null when @p value is empty. */
  JsonText& strOrNull(std::string_view key, std::string_view value) {
    return value.empty() ? raw(key, "null") : str(key, value);
  }
  JsonText& num(std::string_view key, std::int64_t value) {
    return raw(key, std::to_string(value));
  }
  JsonText& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }
  JsonText& null(std::string_view key) { return raw(key, "null"); }
  /** @p json is already JSON text (an object, array or literal). */
  JsonText& raw(std::string_view key, std::string_view json) {
    if (text_.size() > 1) text_ += ',';
    text_ += '"';
    text_ += key;  // keys are literals of this code: never need escaping
    text_ += "\":";
    text_ += json;
    return *this;
  }
  std::string done() {
    text_ += '}';
    return std::move(text_);
  }

 private:
  std::string text_;
};

}  // namespace abx::plugins::agents
