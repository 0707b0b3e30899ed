#include "abx/sdk/utf8.h"

namespace abx::sdk {
namespace {

bool isContinuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length a lead byte announces; 0 for a continuation or invalid byte.
std::size_t sequenceLength(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 0;
}

}  // namespace

std::size_t utf8SafeCut(std::string_view text, std::size_t cut) {
  if (cut >= text.size()) return text.size();
  std::size_t c = cut;
  for (int i = 0; i < 3 && c > 0 && isContinuation(static_cast<unsigned char>(text[c])); ++i) --c;
  // Four continuation bytes in a row are no sequence: cut where asked.
  return isContinuation(static_cast<unsigned char>(text[c])) ? cut : c;
}

std::size_t completeUtf8Length(std::string_view text) {
  const std::size_t n = text.size();
  // Look back over at most 3 continuation bytes for the lead byte.
  for (std::size_t back = 1; back <= 4 && back <= n; ++back) {
    const auto c = static_cast<unsigned char>(text[n - back]);
    if (isContinuation(c)) continue;
    const std::size_t want = sequenceLength(c);
    return want > back ? n - back : n;
  }
  return n;
}

std::size_t leadingContinuationBytes(std::string_view text) {
  std::size_t i = 0;
  while (i < 3 && i < text.size() && isContinuation(static_cast<unsigned char>(text[i]))) ++i;
  return i;
}

std::string messageTail(std::string_view text, std::size_t max) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() <= max) return std::string(text);
  text = text.substr(text.size() - max);
  text.remove_prefix(leadingContinuationBytes(text));
  return "..." + std::string(text);
}

}  // namespace abx::sdk
