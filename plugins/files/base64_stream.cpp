// Whole groups go straight to the codec's block functions, from the caller's
// text into the caller's string. Only what is left of a group at the end of
// a piece, whitespace, padding and errors take the one-character path, which
// keeps the rules (and the messages) the decoder has always had.
#include "base64_stream.h"

#include <algorithm>

#include "base64_codec.h"

namespace abx::plugins::files {
namespace {

sdk::Status invalid(std::string_view why) {
  return sdk::Status::error("Invalid base64 content: " + std::string(why), "ValueError");
}

unsigned char* tail(std::string& s, std::size_t old) {
  return reinterpret_cast<unsigned char*>(s.data()) + old;
}

}  // namespace

void Base64StreamEncoder::update(std::string_view bytes, std::string& out) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::size_t topup = carried_ ? std::min<std::size_t>(3 - carried_, n) : 0;
  std::size_t whole = (n - topup) / 3 * 3;
  std::size_t old = out.size();
  out.resize(old + (carried_ + topup == 3 ? 4 : 0) + whole / 3 * 4);
  char* dst = out.data() + old;
  for (std::size_t i = 0; i < topup; ++i) carry_[carried_++] = in[i];
  if (carried_ == 3) {
    base64::encodeGroups(carry_, 3, dst);
    dst += 4;
    carried_ = 0;
  }
  in += topup;
  base64::encodeGroups(in, whole, dst);
  for (std::size_t i = whole; i < n - topup; ++i) carry_[carried_++] = in[i];
}

void Base64StreamEncoder::finish(std::string& out) {
  if (carried_) {
    std::size_t old = out.size();
    out.resize(old + 4);
    base64::encodeTail(carry_, carried_, out.data() + old);
  }
  carried_ = 0;
}

sdk::Status Base64StreamDecoder::update(std::string_view text, std::string& out) {
  const char* p = text.data();
  const char* end = p + text.size();
  std::size_t old = out.size();
  // Every byte written comes from a group completed in this call.
  out.resize(old + (grouped_ + text.size()) / 4 * 3);
  unsigned char* dst = tail(out, old);
  sdk::Status status;
  while (p < end) {
    if (grouped_ == 0 && padding_ == 0) {
      std::size_t used = base64::decodeGroups(p, static_cast<std::size_t>(end - p), dst);
      p += used;
      dst += used / 4 * 3;
      symbols_ += used;
      if (p == end) break;
    }
    if (status = takeOne(static_cast<unsigned char>(*p++), dst); !status) break;
  }
  out.resize(static_cast<std::size_t>(dst - tail(out, 0)));
  return status;
}

sdk::Status Base64StreamDecoder::takeOne(unsigned char c, unsigned char*& out) {
  unsigned char value = base64::classify(c);
  if (value == base64::kSpace) return sdk::Status::ok();
  if (value == base64::kInvalid) return invalid("unexpected character");
  if (value == base64::kPad) {
    // '=' only fills the third and fourth place of the last group.
    if (!padding_ && grouped_ < 2) return invalid("misplaced padding");
    if (++padding_ > 2) return invalid("too much padding");
    value = 0;
  } else if (padding_) {
    return invalid("data after padding");
  }
  group_[grouped_++] = value;
  ++symbols_;
  if (grouped_ < 4) return sdk::Status::ok();
  grouped_ = 0;
  // The group that completes with padding holds all of it: a second group
  // could only be made of '=', and a third '=' is refused above.
  std::uint32_t v = static_cast<std::uint32_t>(group_[0]) << 18 |
                    static_cast<std::uint32_t>(group_[1]) << 12 |
                    static_cast<std::uint32_t>(group_[2]) << 6 | group_[3];
  unsigned char bytes[3] = {static_cast<unsigned char>(v >> 16), static_cast<unsigned char>(v >> 8),
                            static_cast<unsigned char>(v)};
  for (int i = 0; i < 3 - padding_; ++i) *out++ = bytes[i];
  return sdk::Status::ok();
}

sdk::Status Base64StreamDecoder::finish(std::string&) {
  bool whole = symbols_ % 4 == 0;
  *this = Base64StreamDecoder();
  return whole ? sdk::Status::ok() : invalid("incorrect padding");
}

}  // namespace abx::plugins::files
