// Did-you-mean hints for unknown names in configuration and CLI input.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace abx::kernel {

/** The closest candidate within a small edit distance, or "" if none is close. */
std::string closestMatch(std::string_view word, const std::vector<std::string>& candidates);

/** " (did you mean 'x'?)" or "" — ready to append to an error message. */
std::string didYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace abx::kernel
