// Base64StreamEncoder/Decoder: piecewise coding equals coding the whole,
// at every split, and malformed text is refused with the same message
// wherever the text is cut.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>

#include "base64_stream.h"
#include "plugins/files/random_bytes.h"

namespace abx::plugins::files {
namespace {

using abx::testing::randomBytes;

// An independent reference for the expected text (RFC 4648, padded).
std::string reference(std::string_view in) {
  static const char* kAlpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlpha[(v >> s) & 63];
  }
  if (in.size() - i == 1) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += kAlpha[(v >> 18) & 63];
    out += kAlpha[(v >> 12) & 63];
    out += "==";
  } else if (in.size() - i == 2) {
    unsigned v =
        (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += kAlpha[(v >> 18) & 63];
    out += kAlpha[(v >> 12) & 63];
    out += kAlpha[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

TEST(Base64Stream, LengthIsExact) {
  EXPECT_EQ(base64Length(0), 0u);
  EXPECT_EQ(base64Length(1), 4u);
  EXPECT_EQ(base64Length(3), 4u);
  EXPECT_EQ(base64Length(4), 8u);
  EXPECT_EQ(base64Length(49152), 65536u);
}

TEST(Base64Stream, EncoderMatchesTheReferenceAtEverySplit) {
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 47u, 100u}) {
    std::string data = randomBytes(n, static_cast<unsigned>(n));
    for (std::size_t cut = 0; cut <= n; ++cut) {
      for (std::size_t cut2 = cut; cut2 <= n; cut2 += 3) {
        Base64StreamEncoder enc;
        std::string out;
        enc.update(std::string_view(data).substr(0, cut), out);
        enc.update(std::string_view(data).substr(cut, cut2 - cut), out);
        enc.update(std::string_view(data).substr(cut2), out);
        enc.finish(out);
        ASSERT_EQ(out, reference(data)) << n << " " << cut << " " << cut2;
        EXPECT_EQ(out.size(), base64Length(n));
      }
    }
  }
}

TEST(Base64Stream, LargeInputRoundTrips) {
  std::string data = randomBytes((1u << 20) + 7, 42);
  Base64StreamEncoder enc;
  std::string text;
  for (std::size_t off = 0; off < data.size(); off += 49152)
    enc.update(std::string_view(data).substr(off, 49152), text);
  enc.finish(text);
  EXPECT_EQ(text, reference(data));
  Base64StreamDecoder dec;
  std::string back;
  for (std::size_t off = 0; off < text.size(); off += 10007)
    ASSERT_TRUE(dec.update(std::string_view(text).substr(off, 10007), back));
  ASSERT_TRUE(dec.finish(back));
  EXPECT_EQ(back, data);
}

TEST(Base64Stream, DecoderAtEverySplitAndWithWhitespace) {
  std::string data = randomBytes(100, 7);
  std::string text = reference(data);
  std::string wrapped;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i && i % 10 == 0) wrapped += (i % 20 ? "\r\n" : " \t");
    wrapped += text[i];
  }
  for (std::size_t cut = 0; cut <= wrapped.size(); ++cut) {
    Base64StreamDecoder dec;
    std::string out;
    ASSERT_TRUE(dec.update(std::string_view(wrapped).substr(0, cut), out));
    ASSERT_TRUE(dec.update(std::string_view(wrapped).substr(cut), out));
    ASSERT_TRUE(dec.finish(out));
    ASSERT_EQ(out, data) << "cut at " << cut;
  }
}

TEST(Base64Stream, DecoderPaddingForms) {
  for (std::string_view text : {"", "QQ==", "QUI=", "QUJD", "QUJDRA==", "QQ=\n="}) {
    Base64StreamDecoder dec;
    std::string out;
    ASSERT_TRUE(dec.update(text, out)) << text;
    ASSERT_TRUE(dec.finish(out)) << text;
  }
  Base64StreamDecoder dec;
  std::string out;
  ASSERT_TRUE(dec.update("QUI", out));
  ASSERT_TRUE(dec.update("=", out));
  ASSERT_TRUE(dec.finish(out));
  EXPECT_EQ(out, "AB");
}

TEST(Base64Stream, DecoderRefusesMalformedText) {
  for (std::string_view text :
       {"QUJ!", "QQ", "QQ=", "Q===", "=QQQ", "QQ==QQ==", "QUJD=", "QQ=A", "QQ===", "QUJ-"}) {
    Base64StreamDecoder dec;
    std::string out;
    auto s = dec.update(text, out);
    if (s) s = dec.finish(out);
    EXPECT_FALSE(s) << text;
    EXPECT_EQ(s.type(), "ValueError") << text;
    EXPECT_TRUE(s.message().starts_with("Invalid base64 content")) << s.message();
  }
}

// Splits @p text at every position (and once more 3 characters later) and
// returns the decoder's status and bytes for each cut.
void expectSameAtEverySplit(const std::string& text, const std::string& want_error,
                            const std::string& want_bytes) {
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    std::size_t cut2 = std::min(text.size(), cut + 3);
    Base64StreamDecoder dec;
    std::string out;
    auto s = dec.update(std::string_view(text).substr(0, cut), out);
    if (s) s = dec.update(std::string_view(text).substr(cut, cut2 - cut), out);
    if (s) s = dec.update(std::string_view(text).substr(cut2), out);
    if (s) s = dec.finish(out);
    if (want_error.empty()) {
      ASSERT_TRUE(s) << s.message() << " cut " << cut;
      ASSERT_EQ(out, want_bytes) << "cut " << cut;
    } else {
      ASSERT_FALSE(s) << "cut " << cut;
      ASSERT_EQ(s.type(), "ValueError");
      ASSERT_EQ(s.message(), "Invalid base64 content: " + want_error) << "cut " << cut;
    }
  }
}

TEST(Base64Stream, EveryErrorHasItsMessageAtEverySplit) {
  // After 96 clean characters, so the fast path has run before the error.
  const std::string data = randomBytes(72, 5);
  const std::string head = reference(data);
  const std::pair<std::string, std::string> cases[] = {
      {"QUJ!", "unexpected character"},    {"QU\x80J", "unexpected character"},
      {"QU-_", "unexpected character"},    {std::string("QU\0J", 4), "unexpected character"},
      {"QUJ\x1f", "unexpected character"}, {"QQ", "incorrect padding"},
      {"QQ=", "incorrect padding"},        {"QUJ", "incorrect padding"},
      {"QUI==", "incorrect padding"},      {"Q===", "misplaced padding"},
      {"=QQQ", "misplaced padding"},       {"QUJD=", "misplaced padding"},
      {"QQ===", "too much padding"},       {"QQ==QQ==", "data after padding"},
      {"QQ=A", "data after padding"},      {"QUI=\nA", "data after padding"},
      {"QQ== =", "too much padding"},
  };
  for (const auto& [tail, message] : cases) {
    SCOPED_TRACE(tail);
    expectSameAtEverySplit(tail, message, "");
    expectSameAtEverySplit(head + tail, message, "");
    expectSameAtEverySplit(head + " \n" + tail, message, "");
  }
}

TEST(Base64Stream, ValidFormsAtEverySplit) {
  const std::string data = randomBytes(100, 6);
  const std::string text = reference(data);
  expectSameAtEverySplit(text, "", data);
  expectSameAtEverySplit(" \t\n\r\f\v" + text + "\n", "", data);
  expectSameAtEverySplit(text.substr(0, 50) + "\n" + text.substr(50), "", data);
  expectSameAtEverySplit("QUI=\n", "", "AB");
  expectSameAtEverySplit("QQ= \r\n=", "", "A");
  // Bits the padded group does not use are ignored (as by POCO and Python).
  expectSameAtEverySplit("QR==", "", "A");
  expectSameAtEverySplit("QUJ=", "", "AB");
}

TEST(Base64Stream, WhitespaceIsSkippedAndOtherControlsRefused) {
  for (int c = 0; c < 256; ++c) {
    bool alphabet = std::isalnum(c) && c < 128;
    if (alphabet || c == '+' || c == '/' || c == '=') continue;
    bool space = c == ' ' || (c >= '\t' && c <= '\r');
    std::string text = "QU" + std::string(1, static_cast<char>(c)) + "JD";
    Base64StreamDecoder dec;
    std::string out;
    auto s = dec.update(text, out);
    if (s) s = dec.finish(out);
    EXPECT_EQ(bool(s), space) << c;
    if (space) {
      EXPECT_EQ(out, "ABC");
    }
  }
}

TEST(Base64Stream, LargeInputInRandomPiecesBothWays) {
  const std::string data = randomBytes((5u << 20) + 2, 77);
  std::mt19937 rng(3);
  Base64StreamEncoder enc;
  std::string text;
  for (std::size_t off = 0; off < data.size();) {
    std::size_t n = std::min<std::size_t>(data.size() - off, 1 + rng() % 200000);
    enc.update(std::string_view(data).substr(off, n), text);
    off += n;
  }
  enc.finish(text);
  ASSERT_EQ(text, reference(data));
  Base64StreamDecoder dec;
  std::string back;
  for (std::size_t off = 0; off < text.size();) {
    std::size_t n = std::min<std::size_t>(text.size() - off, 1 + rng() % 200000);
    ASSERT_TRUE(dec.update(std::string_view(text).substr(off, n), back));
    off += n;
  }
  EXPECT_EQ(dec.symbols(), text.size());
  ASSERT_TRUE(dec.finish(back));
  ASSERT_EQ(back, data);
}

TEST(Base64Stream, EncoderAtEveryTwoWaySplitAcrossBlocks) {
  const std::string data = randomBytes(200, 8);  // several 24-byte SIMD steps
  for (std::size_t cut = 0; cut <= data.size(); ++cut) {
    Base64StreamEncoder enc;
    std::string out;
    enc.update(std::string_view(data).substr(0, cut), out);
    enc.update(std::string_view(data).substr(cut), out);
    enc.finish(out);
    ASSERT_EQ(out, reference(data)) << cut;
  }
}

TEST(Base64Stream, CodersAreReusableAfterFinish) {
  Base64StreamEncoder enc;
  std::string text;
  enc.update("A", text);
  enc.finish(text);
  enc.update("AB", text);
  enc.finish(text);
  EXPECT_EQ(text, "QQ==QUI=");
  Base64StreamDecoder dec;
  std::string out;
  ASSERT_TRUE(dec.update("QQ==", out));
  ASSERT_TRUE(dec.finish(out));
  EXPECT_EQ(dec.symbols(), 0u);
  ASSERT_TRUE(dec.update("QUI=", out));
  ASSERT_TRUE(dec.finish(out));
  EXPECT_EQ(out, "AAB");
}

}  // namespace
}  // namespace abx::plugins::files
