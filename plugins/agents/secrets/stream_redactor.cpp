#include "secrets/stream_redactor.h"

namespace abx::plugins::agents {

StreamRedactor::StreamRedactor(const sdk::SecretRedactor& redactor) : redactor_(&redactor) {}

StreamRedactor::StreamRedactor(std::shared_ptr<const sdk::RedactionPatterns> patterns)
    : fixed_(std::move(patterns)) {}

std::shared_ptr<const sdk::RedactionPatterns> StreamRedactor::current() const {
  return redactor_ != nullptr ? redactor_->patterns() : fixed_;
}

std::string StreamRedactor::push(std::string_view chunk) {
  std::string joined;
  std::string_view data = chunk;
  if (!held_.empty()) {
    joined = std::move(held_);
    joined.append(chunk);
    data = joined;
  }
  held_.clear();

  std::size_t start = 0;
  if (swallowing_) {  // the rest of a token that was already replaced by [REDACTED]
    while (start < data.size() && sdk::inTokenAlphabet(*swallowing_, data[start])) ++start;
    if (start > 0) prev_byte_ = static_cast<unsigned char>(data[start - 1]);
    if (start == data.size()) return {};
    swallowing_.reset();
  }

  const std::string_view rest = data.substr(start);
  std::string out;
  out.reserve(rest.size());
  const auto result = current()->scan(rest, prev_byte_, false, out);
  if (result.decided > 0) prev_byte_ = static_cast<unsigned char>(rest[result.decided - 1]);
  swallowing_ = result.open_run;
  held_.assign(rest.substr(result.decided));
  return out;
}

std::string StreamRedactor::flush() {
  std::string out;
  if (!held_.empty()) current()->scan(held_, prev_byte_, true, out);
  held_.clear();
  prev_byte_ = -1;
  swallowing_.reset();
  return out;
}

}  // namespace abx::plugins::agents
