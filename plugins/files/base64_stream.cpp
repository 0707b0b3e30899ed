// POCO does the coding; this file only cuts the stream into whole groups
// and validates the text first, so POCO never sees a character it would
// silently skip or a '=' in the middle of the data.
#include "base64_stream.h"

#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>
#include <Poco/MemoryStream.h>

#include <array>
#include <sstream>

namespace abx::plugins::files {
namespace {

// Decoded in slices of this many base64 characters (48 KiB of bytes).
constexpr std::size_t kDecodeSlice = 64u << 10;

enum : unsigned char { kBad = 0, kSymbol = 1, kSpace = 2, kPad = 3 };

constexpr std::array<unsigned char, 256> classTable() {
  std::array<unsigned char, 256> t{};
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kSymbol;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kSymbol;
  for (int c = '0'; c <= '9'; ++c) t[c] = kSymbol;
  t['+'] = t['/'] = kSymbol;
  t[' '] = t['\t'] = t['\n'] = t['\r'] = t['\f'] = t['\v'] = kSpace;
  t['='] = kPad;
  return t;
}
constexpr auto kClass = classTable();

sdk::Status invalid(std::string_view why) {
  return sdk::Status::error("Invalid base64 content: " + std::string(why), "ValueError");
}

}  // namespace

void Base64StreamEncoder::update(std::string_view bytes, std::string& out) {
  while (carried_ > 0 && carried_ < 3 && !bytes.empty()) {
    carry_[carried_++] = bytes.front();
    bytes.remove_prefix(1);
  }
  if (carried_ == 3) {
    encode(std::string_view(carry_, 3), false, out);
    carried_ = 0;
  }
  std::size_t whole = bytes.size() / 3 * 3;
  if (whole) encode(bytes.substr(0, whole), false, out);
  for (char c : bytes.substr(whole)) carry_[carried_++] = c;
}

void Base64StreamEncoder::finish(std::string& out) {
  if (carried_) encode(std::string_view(carry_, carried_), true, out);
  carried_ = 0;
}

void Base64StreamEncoder::encode(std::string_view bytes, bool, std::string& out) {
  // Whole groups never produce padding, so encoding slice by slice gives
  // the same text as encoding the whole at once.
  std::ostringstream text;
  Poco::Base64Encoder encoder(text);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  encoder.close();
  out += text.view();
}

sdk::Status Base64StreamDecoder::update(std::string_view text, std::string& out) {
  for (std::size_t i = 0; i < text.size();) {
    // Runs of plain symbols are the common case: copy them in one go.
    std::size_t j = i;
    while (j < text.size() && kClass[static_cast<unsigned char>(text[j])] == kSymbol) ++j;
    if (j > i) {
      if (padding_) return invalid("data after padding");
      pending_.append(text.data() + i, j - i);
      symbols_ += j - i;
      i = j;
      if (pending_.size() >= kDecodeSlice)
        if (auto s = decodePending(out, false); !s) return s;
      continue;
    }
    switch (kClass[static_cast<unsigned char>(text[i])]) {
      case kSpace:
        break;
      case kPad:
        // '=' only fills the third and fourth place of the last group.
        if (!padding_ && symbols_ % 4 < 2) return invalid("misplaced padding");
        if (++padding_ > 2) return invalid("too much padding");
        pending_ += '=';
        ++symbols_;
        break;
      default:
        return invalid("unexpected character");
    }
    ++i;
  }
  return sdk::Status::ok();
}

sdk::Status Base64StreamDecoder::finish(std::string& out) {
  if (symbols_ % 4 != 0) return invalid("incorrect padding");
  auto s = decodePending(out, true);
  *this = Base64StreamDecoder();
  return s;
}

sdk::Status Base64StreamDecoder::decodePending(std::string& out, bool last) {
  std::size_t whole = last ? pending_.size() : pending_.size() / 4 * 4;
  if (whole == 0) return sdk::Status::ok();
  try {
    Poco::MemoryInputStream in(pending_.data(), static_cast<std::streamsize>(whole));
    Poco::Base64Decoder decoder(in);
    std::size_t old = out.size();
    out.resize(old + whole / 4 * 3);
    decoder.read(out.data() + old, static_cast<std::streamsize>(whole / 4 * 3));
    out.resize(old + static_cast<std::size_t>(decoder.gcount()));
  } catch (const Poco::Exception& e) {
    return invalid(e.displayText());
  }
  pending_.erase(0, whole);
  return sdk::Status::ok();
}

}  // namespace abx::plugins::files
