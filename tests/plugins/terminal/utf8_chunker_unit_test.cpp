// Utf8Chunker: a multi-byte character is never split across frames, at any
// split point of the byte stream; bytes that are not UTF-8 become U+FFFD
// (one per maximal ill-formed subpart), so every frame is valid JSON text.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "utf8_chunker.h"

namespace abx::plugins::terminal {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

// An independent validator: decodes code points and checks the ranges
// (no overlongs, no surrogates, nothing above U+10FFFF).
bool validUtf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int len;
    std::uint32_t cp;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      len = 2;
      cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      len = 3;
      cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      len = 4;
      cp = b & 0x07;
    } else {
      return false;
    }
    if (i + static_cast<std::size_t>(len) > s.size()) return false;
    for (int k = 1; k < len; ++k) {
      const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += static_cast<std::size_t>(len);
  }
  return true;
}

/** Feeds @p parts one by one; every piece returned must be valid on its own. */
std::string feedAll(const std::vector<std::string>& parts) {
  Utf8Chunker chunker;
  std::string out;
  for (const auto& part : parts) {
    std::string piece = chunker.feed(part);
    EXPECT_TRUE(validUtf8(piece)) << "piece not valid UTF-8";
    out += piece;
  }
  std::string tail = chunker.flush();
  EXPECT_TRUE(validUtf8(tail));
  return out + tail;
}

TEST(Utf8Chunker, AsciiPassesThroughUnchanged) {
  Utf8Chunker chunker;
  EXPECT_EQ(chunker.feed("hello\r\n$ "), "hello\r\n$ ");
  EXPECT_EQ(chunker.pending(), 0u);
  EXPECT_EQ(chunker.flush(), "");
}

TEST(Utf8Chunker, EverySplitPointOfEveryCharacterLength) {
  // 1-, 2-, 3- and 4-byte characters, and the edges of the valid ranges.
  const std::string text =
      "a\xC3\xA9"         // é
      "\xE2\x82\xAC"      // €
      "\xF0\x9F\x98\x80"  // 😀
      "\xDF\xBF"          // U+07FF
      "\xE0\xA0\x80"      // U+0800
      "\xED\x9F\xBF"      // U+D7FF
      "\xEE\x80\x80"      // U+E000
      "\xF0\x90\x80\x80"  // U+10000
      "\xF4\x8F\xBF\xBF"  // U+10FFFF
      "z";
  ASSERT_TRUE(validUtf8(text));
  for (std::size_t i = 0; i <= text.size(); ++i) {
    SCOPED_TRACE("split at " + std::to_string(i));
    EXPECT_EQ(feedAll({text.substr(0, i), text.substr(i)}), text);
  }
  for (std::size_t i = 0; i <= text.size(); ++i)
    for (std::size_t j = i; j <= text.size(); ++j) {
      SCOPED_TRACE("split at " + std::to_string(i) + "," + std::to_string(j));
      EXPECT_EQ(feedAll({text.substr(0, i), text.substr(i, j - i), text.substr(j)}), text);
    }
  std::vector<std::string> bytes;
  for (char c : text) bytes.emplace_back(1, c);
  EXPECT_EQ(feedAll(bytes), text);
}

TEST(Utf8Chunker, HoldsBackOnlyTheIncompleteTail) {
  Utf8Chunker chunker;
  EXPECT_EQ(chunker.feed("ab\xF0\x9F"), "ab");
  EXPECT_EQ(chunker.pending(), 2u);
  EXPECT_EQ(chunker.feed("\x98"), "");
  EXPECT_EQ(chunker.pending(), 3u);
  EXPECT_EQ(chunker.feed("\x80!"), "\xF0\x9F\x98\x80!");
  EXPECT_EQ(chunker.pending(), 0u);
}

TEST(Utf8Chunker, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(sanitizeUtf8("\xFF"), kFffd);
  EXPECT_EQ(sanitizeUtf8("a\x80"
                         "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(sanitizeUtf8("\xC0\xAF"), kFffd + kFffd);                          // overlong '/'
  EXPECT_EQ(sanitizeUtf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);              // overlong
  EXPECT_EQ(sanitizeUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);              // surrogate
  EXPECT_EQ(sanitizeUtf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);  // > U+10FFFF
  EXPECT_EQ(sanitizeUtf8("\xF5\xBF"), kFffd + kFffd);
  // A truncated sequence is one U+FFFD (its maximal subpart), the next
  // character survives.
  EXPECT_EQ(sanitizeUtf8("\xE2\x82"
                         "A"),
            kFffd + "A");
  EXPECT_EQ(sanitizeUtf8("\xF0\x9F\x98"
                         "\xC3\xA9"),
            kFffd + "\xC3\xA9");
  EXPECT_EQ(sanitizeUtf8(std::string("\0x", 2)), std::string("\0x", 2));  // NUL is valid
}

TEST(Utf8Chunker, InvalidSequencesAcrossSplitPoints) {
  const std::string text =
      "x\xE2\x82"
      "A\xFF\xF0\x9F\x98\x80\xC3"
      "B\xED\xA0\x80"
      "end\xE2";
  const std::string expected = sanitizeUtf8(text);
  EXPECT_EQ(expected, "x" + kFffd + "A" + kFffd + "\xF0\x9F\x98\x80" + kFffd + "B" + kFffd + kFffd +
                          kFffd + "end" + kFffd);
  for (std::size_t i = 0; i <= text.size(); ++i)
    for (std::size_t j = i; j <= text.size(); ++j) {
      SCOPED_TRACE("split at " + std::to_string(i) + "," + std::to_string(j));
      EXPECT_EQ(feedAll({text.substr(0, i), text.substr(i, j - i), text.substr(j)}), expected);
    }
}

TEST(Utf8Chunker, FlushTurnsAnUnfinishedCharacterIntoOneReplacement) {
  Utf8Chunker chunker;
  EXPECT_EQ(chunker.feed("ok\xE2\x82"), "ok");
  EXPECT_EQ(chunker.flush(), kFffd);
  EXPECT_EQ(chunker.pending(), 0u);
  EXPECT_EQ(chunker.flush(), "");
}

TEST(Utf8Chunker, RandomBytesAnySplitsGiveTheSameValidText) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(static_cast<std::size_t>(rng() % 64), '\0');
    for (auto& c : bytes) {
      // Bias towards bytes that form (or almost form) multi-byte sequences.
      const unsigned r = rng() % 4;
      c = static_cast<char>(r == 0   ? rng() % 0x80
                            : r == 1 ? 0x80 + rng() % 0x40
                            : r == 2 ? 0xC0 + rng() % 0x40
                                     : rng() % 0x100);
    }
    const std::string whole = sanitizeUtf8(bytes);
    ASSERT_TRUE(validUtf8(whole));
    std::vector<std::string> parts;
    for (std::size_t at = 0; at < bytes.size();) {
      const std::size_t n = 1 + rng() % 5;
      parts.push_back(bytes.substr(at, n));
      at += n;
    }
    EXPECT_EQ(feedAll(parts), whole);
  }
}

}  // namespace
}  // namespace abx::plugins::terminal
