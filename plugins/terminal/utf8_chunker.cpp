#include "utf8_chunker.h"

namespace abx::plugins::terminal {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Unicode Table 3-7: how many bytes a lead byte starts and the range of the
// byte after it (the rest are always 80..BF). 0 means "not a lead byte".
struct Lead {
  int length;
  unsigned char low, high;
};

Lead leadOf(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};  // no surrogates
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing above U+10FFFF
  return {0, 0, 0};
}

/**
 * Appends the valid text of @p in to @p out. With @p final false, an
 * incomplete (so far valid) character at the end is left unconsumed.
 * @return how many bytes of @p in were consumed.
 */
std::size_t decode(std::string_view in, bool final, std::string& out) {
  std::size_t i = 0;
  const std::size_t n = in.size();
  out.reserve(out.size() + n);
  while (i < n) {
    const auto b = static_cast<unsigned char>(in[i]);
    if (b < 0x80) {
      // Copy a run of ASCII at once: the common case.
      std::size_t j = i + 1;
      while (j < n && static_cast<unsigned char>(in[j]) < 0x80) ++j;
      out.append(in.substr(i, j - i));
      i = j;
      continue;
    }
    const Lead lead = leadOf(b);
    if (lead.length == 0) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    int k = 1;
    bool bad = false;
    for (; k < lead.length; ++k) {
      if (i + k >= n) break;
      const auto c = static_cast<unsigned char>(in[i + k]);
      const unsigned char low = k == 1 ? lead.low : 0x80;
      const unsigned char high = k == 1 ? lead.high : 0xBF;
      if (c < low || c > high) {
        bad = true;
        break;
      }
    }
    if (bad) {
      // The maximal subpart [i, i+k) is one U+FFFD; the offending byte
      // starts over.
      out.append(kReplacement);
      i += static_cast<std::size_t>(k);
      continue;
    }
    if (k < lead.length) {  // ran out of input inside a valid prefix
      if (!final) return i;
      out.append(kReplacement);
      return n;
    }
    out.append(in.substr(i, static_cast<std::size_t>(lead.length)));
    i += static_cast<std::size_t>(lead.length);
  }
  return n;
}

}  // namespace

std::string Utf8Chunker::feed(std::string_view bytes) {
  std::string out;
  if (carry_.empty()) {
    const std::size_t used = decode(bytes, false, out);
    carry_.assign(bytes.substr(used));
    return out;
  }
  std::string joined = std::move(carry_);
  joined.append(bytes);
  const std::size_t used = decode(joined, false, out);
  carry_ = joined.substr(used);
  return out;
}

std::string Utf8Chunker::flush() {
  std::string out;
  decode(carry_, true, out);
  carry_.clear();
  return out;
}

std::string sanitizeUtf8(std::string_view bytes) {
  std::string out;
  decode(bytes, true, out);
  return out;
}

}  // namespace abx::plugins::terminal
