// The fields of git's -z output (porcelain status, numstat), read in order:
// each ends at a NUL byte or at the end of the text.
#pragma once

#include <optional>
#include <string_view>

namespace abx::plugins::dev_tools {

class NulFields {
 public:
  explicit NulFields(std::string_view text) : text_(text) {}

  /** The next field; nullopt once the text is used up. */
  std::optional<std::string_view> next() {
    if (at_ >= text_.size()) return std::nullopt;
    auto end = text_.find('\0', at_);
    if (end == std::string_view::npos) end = text_.size();
    auto field = text_.substr(at_, end - at_);
    at_ = end + 1;
    return field;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace abx::plugins::dev_tools
