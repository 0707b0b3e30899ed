// pieces(): the fuzz targets' one way to cut a payload at up to four
// input-chosen places (streaming coders and redactors must give the same
// output for any cut).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace abx::fuzz {

/** @p payload cut at up to four places chosen by the four bytes at @p cuts. */
inline std::vector<std::string_view> pieces(std::string_view payload, const std::uint8_t* cuts) {
  std::vector<std::size_t> at;
  for (int i = 0; i < 4; ++i)
    at.push_back(payload.empty() ? 0 : (cuts[i] * 257u + i * 31u) % (payload.size() + 1));
  std::sort(at.begin(), at.end());
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (std::size_t a : at) {
    out.push_back(payload.substr(from, a - from));
    from = a;
  }
  out.push_back(payload.substr(from));
  return out;
}

}  // namespace abx::fuzz
