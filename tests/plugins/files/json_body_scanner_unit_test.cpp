// JsonBodyScanner: member order, escapes, every chunk boundary (inside
// escapes, surrogate pairs and base64 groups), and malformed bodies.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base64_stream.h"
#include "json_body_scanner.h"

namespace abx::plugins::files {
namespace {

struct Scan {
  sdk::Status status;
  std::map<std::string, std::string, std::less<>> strings;
  std::map<std::string, sdk::JsonKind, std::less<>> kinds;
  std::string streamed;  // content_base64 as handed over
  int ends = 0;          // done markers seen
};

/** Scans @p body cut at @p cuts (ascending offsets). */
Scan scan(std::string_view body, const std::vector<std::size_t>& cuts = {}) {
  Scan out;
  JsonBodyScanner scanner({"content_base64"},
                          [&](std::string_view key, std::string_view bytes, bool done) {
                            EXPECT_EQ(key, "content_base64");
                            out.streamed += bytes;
                            if (done) ++out.ends;
                            return sdk::Status::ok();
                          });
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    if (!(out.status = scanner.feed(body.substr(from, cut - from)))) return out;
    from = cut;
  }
  if (!(out.status = scanner.feed(body.substr(from)))) return out;
  out.status = scanner.finish();
  out.strings = scanner.strings();
  out.kinds = scanner.kinds();
  return out;
}

TEST(JsonBodyScanner, PathThenContent) {
  auto s = scan(R"({"path": "a/b.txt", "content_base64": "QUJD"})");
  ASSERT_TRUE(s.status) << s.status.message();
  EXPECT_EQ(s.strings.at("path"), "a/b.txt");
  EXPECT_EQ(s.streamed, "QUJD");
  EXPECT_EQ(s.ends, 1);
  EXPECT_EQ(s.strings.count("content_base64"), 0u);
  EXPECT_EQ(s.kinds.at("content_base64"), sdk::JsonKind::string);
}

TEST(JsonBodyScanner, ContentThenPathAndOtherMembersOfEveryKind) {
  auto s = scan(
      " {\"content_base64\":\"QUJD\",\"n\":-1.5e3,\"i\":42,\"t\":true,\"f\":false,\"z\":null,"
      "\"o\":{\"x\":[1,\"}]\\\"\",{\"y\":[]}]},\"a\":[\"[\"],\"path\":\"p\"}\r\n");
  ASSERT_TRUE(s.status) << s.status.message();
  EXPECT_EQ(s.streamed, "QUJD");
  EXPECT_EQ(s.strings.at("path"), "p");
  EXPECT_EQ(s.kinds.at("n"), sdk::JsonKind::number);
  EXPECT_EQ(s.kinds.at("i"), sdk::JsonKind::integer);
  EXPECT_EQ(s.kinds.at("t"), sdk::JsonKind::boolean);
  EXPECT_EQ(s.kinds.at("f"), sdk::JsonKind::boolean);
  EXPECT_EQ(s.kinds.at("z"), sdk::JsonKind::null);
  EXPECT_EQ(s.kinds.at("o"), sdk::JsonKind::object);
  EXPECT_EQ(s.kinds.at("a"), sdk::JsonKind::array);
}

TEST(JsonBodyScanner, EmptyBodyAndEmptyObject) {
  auto empty = scan("");
  EXPECT_TRUE(empty.status);
  EXPECT_TRUE(empty.kinds.empty());
  auto obj = scan(" { } ");
  EXPECT_TRUE(obj.status);
  EXPECT_TRUE(obj.kinds.empty());
}

TEST(JsonBodyScanner, EscapesInStrings) {
  auto s = scan(
      R"({"path":"a\"b\\c\/d\n\t\r\b\f\u00e9\u20ac\ud83d\ude00\udcff\u0041","content_base64":"QU\nJD"})");
  ASSERT_TRUE(s.status) << s.status.message();
  EXPECT_EQ(s.strings.at("path"),
            "a\"b\\c/d\n\t\r\b\f\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF"
            "A");
  EXPECT_EQ(s.streamed, "QU\nJD");
}

TEST(JsonBodyScanner, EveryChunkBoundaryGivesTheSameResult) {
  const std::string body =
      R"({"x":{"k":["\"}"]},"path":"d\u00e9j\u00e0\ud83d\ude00\/f\"","content_base64":"QUJD\nREVG\/\u0041A==","y":12})";
  auto whole = scan(body);
  ASSERT_TRUE(whole.status) << whole.status.message();
  for (std::size_t cut = 1; cut < body.size(); ++cut) {
    auto two = scan(body, {cut});
    ASSERT_TRUE(two.status) << "cut at " << cut << ": " << two.status.message();
    EXPECT_EQ(two.strings, whole.strings) << "cut at " << cut;
    EXPECT_EQ(two.streamed, whole.streamed) << "cut at " << cut;
    EXPECT_EQ(two.ends, 1);
  }
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < body.size(); ++i) every.push_back(i);
  auto bytewise = scan(body, every);
  ASSERT_TRUE(bytewise.status);
  EXPECT_EQ(bytewise.strings, whole.strings);
  EXPECT_EQ(bytewise.streamed, whole.streamed);
}

TEST(JsonBodyScanner, StreamedBase64DecodesAlikeAtEveryCut) {
  std::string data;
  for (int i = 0; i < 300; ++i) data += static_cast<char>(i * 7 + 3);
  std::string text;
  Base64StreamEncoder enc;
  enc.update(data, text);
  enc.finish(text);
  // A wrapped, slash-escaped variant, as some clients send it.
  std::string wire;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i && i % 76 == 0) wire += "\\n";
    wire += text[i] == '/' ? std::string("\\/") : std::string(1, text[i]);
  }
  const std::string body = "{\"content_base64\":\"" + wire + "\",\"path\":\"p\"}";
  for (std::size_t cut = 1; cut < body.size(); cut += 1) {
    std::string decoded;
    Base64StreamDecoder dec;
    sdk::Status bad;
    JsonBodyScanner scanner({"content_base64"},
                            [&](std::string_view, std::string_view bytes, bool done) {
                              return done ? dec.finish(decoded) : dec.update(bytes, decoded);
                            });
    ASSERT_TRUE(scanner.feed(std::string_view(body).substr(0, cut)));
    ASSERT_TRUE(scanner.feed(std::string_view(body).substr(cut)));
    ASSERT_TRUE(scanner.finish());
    ASSERT_EQ(decoded, data) << "cut at " << cut;
  }
}

TEST(JsonBodyScanner, MalformedBodiesFailWithValueError) {
  const std::vector<std::string> bad = {
      "[]",
      "\"x\"",
      "{",
      "{\"a\"",
      "{\"a\" 1}",
      "{\"a\":}",
      "{\"a\":1,}",
      "{\"a\":1 \"b\":2}",
      "{} x",
      "{}{}",
      "{\"a\":\"x\ny\"}",
      "{\"a\":\"\\x\"}",
      "{\"a\":\"\\u12g4\"}",
      "{\"a\":\"\\ud83d\"}",
      "{\"a\":\"\\ud83dx\"}",
      "{\"a\":\"\\ud83d\\n\"}",
      "{\"a\":\"\\udc10\"}",
      "{\"a\":tru}",
      "{\"a\":01}",
      "{\"a\":1.}",
      "{\"a\":-}",
      "{\"a\":[1,2}",
      "{\"a\":{\"b\":1]}",
      "{\"content_base64\":\"QUJD",
      "{\"a\":1,\"a\":2}",
      "{a:1}",
  };
  for (const auto& body : bad) {
    auto s = scan(body);
    EXPECT_FALSE(s.status) << body;
    EXPECT_EQ(s.status.type(), "ValueError") << body;
  }
  EXPECT_EQ(scan("{\"a\":1,\"a\":2}").status.message(), "Duplicate field 'a'");
  EXPECT_TRUE(scan("{\"a\":1}").status);
}

TEST(JsonBodyScanner, KeptStringsAreBounded) {
  JsonBodyScanner scanner({}, nullptr, 8);
  EXPECT_TRUE(scanner.feed("{\"path\":\"12345678\","));
  auto s = scanner.feed("\"other\":\"123456789\"}");
  EXPECT_FALSE(s);
  EXPECT_EQ(s.message(), "Field 'other' is too long");
  EXPECT_FALSE(scanner.finish());  // failures stick
}

TEST(JsonBodyScanner, AFailingCallbackStopsTheScanWithItsStatus) {
  int calls = 0;
  JsonBodyScanner scanner({"content_base64"}, [&](std::string_view, std::string_view, bool) {
    ++calls;
    return sdk::Status::error("too big", "Custom");
  });
  auto s = scanner.feed("{\"content_base64\":\"QUJD\",\"path\":\"x\"}");
  EXPECT_FALSE(s);
  EXPECT_EQ(s.type(), "Custom");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(scanner.feed("more").type(), "Custom");
}

TEST(JsonBodyScanner, SpecialBytesAtEveryOffsetOfALongRun) {
  // Runs are scanned 16 bytes a step: the byte that ends one must be found
  // wherever it falls, and bytes >= 0x80 and 0x7f are plain.
  for (std::size_t pos = 0; pos <= 40; ++pos) {
    SCOPED_TRACE(pos);
    std::string before(pos, 'a'), after(40 - pos, '\xe9');
    auto escaped = scan("{\"path\":\"" + before + "\\n" + after + "\x7f\"}");
    ASSERT_TRUE(escaped.status) << escaped.status.message();
    EXPECT_EQ(escaped.strings.at("path"), before + "\n" + after + "\x7f");
    auto streamed = scan("{\"content_base64\":\"" + before + "\",\"path\":\"" + after + "\"}");
    ASSERT_TRUE(streamed.status) << streamed.status.message();
    EXPECT_EQ(streamed.streamed, before);
    EXPECT_EQ(streamed.strings.at("path"), after);
    for (char control : {'\0', '\n', '\x1f'}) {
      auto bad = scan("{\"path\":\"" + before + control + after + "\"}");
      EXPECT_FALSE(bad.status) << int(control);
      EXPECT_EQ(bad.status.message(), "Invalid JSON: control character in a string");
    }
  }
}

}  // namespace
}  // namespace abx::plugins::files
