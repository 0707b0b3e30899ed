// SDK Json (1.5): nested access and iteration with paths in the messages,
// the parser's edge cases (escapes, surrogates, UTF-8, depth, repeated keys,
// numbers), and JsonWriter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "abx/sdk/json.h"

namespace {

using abx::sdk::Json;
using abx::sdk::JsonKind;
using abx::sdk::JsonScalar;
using abx::sdk::JsonWriter;
using ::testing::HasSubstr;
using ::testing::StartsWith;

Json parse(std::string_view text) {
  auto r = Json::parse(text);
  EXPECT_TRUE(r.isOk()) << text << ": " << (r.isOk() ? "" : r.status().message());
  return r.isOk() ? std::move(r).value() : Json();
}

const char* kBody =
    R"({"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"hi"},)"
    R"({"type":"input_image","detail":3}]},"plain"],"meta":{"k":"v"}})";

TEST(SdkJsonNested, GetAndAtWalkTheTree) {
  auto body = parse(kBody);
  auto input = body.get("input");
  EXPECT_TRUE(input.isArray());
  EXPECT_EQ(input.size(), 2u);
  EXPECT_EQ(input.path(), "input");
  auto text = input.at(0).get("content").at(0).get("text");
  EXPECT_EQ(text.path(), "input[0].content[0].text");
  EXPECT_EQ(*text.asString(), "hi");
  EXPECT_EQ(text.stringView(), "hi");
  EXPECT_EQ(*input.at(1).asString(), "plain");
  EXPECT_EQ(body.get("meta").size(), 1u);
  EXPECT_EQ(body.get("model").size(), 0u);  // a scalar has no items
}

TEST(SdkJsonNested, AbsentValuesAreMissingWithTheirPath) {
  auto body = parse(kBody);
  auto gone = body.get("input").at(7).get("role");
  EXPECT_TRUE(gone.isMissing());
  EXPECT_TRUE(gone.isAbsent());
  EXPECT_EQ(gone.path(), "input[7].role");
  EXPECT_EQ(gone.asString().status().message(), "Missing required field 'input[7].role'");
  EXPECT_EQ(*gone.asString(std::string("user")), "user");
  EXPECT_TRUE(body.get("model").at(0).isMissing());     // at() on a non-array
  EXPECT_TRUE(body.get("input").get("x").isMissing());  // get() on a non-object
  EXPECT_TRUE(Json::missing().isMissing());
  EXPECT_EQ(Json::missing().path(), "");
  EXPECT_TRUE(parse(R"({"n":null})").get("n").isAbsent());
  EXPECT_FALSE(parse(R"({"n":null})").get("n").isMissing());
}

TEST(SdkJsonNested, TypedReadsNameThePath) {
  auto body = parse(kBody);
  auto detail = body.get("input").at(0).get("content").at(1).get("detail");
  EXPECT_EQ(detail.asString().status().message(),
            "Field 'input[0].content[1].detail' must be a string");
  EXPECT_EQ(detail.asString().status().type(), "ValueError");
  EXPECT_EQ(*detail.asInteger(), 3);
  EXPECT_EQ(body.get("meta").asBoolean().status().message(), "Field 'meta' must be a boolean");
  // The root has no name.
  EXPECT_EQ(parse("[1]").asString().status().message(), "Value must be a string");
  // Keyed reads on a nested value name the whole path too...
  EXPECT_EQ(body.get("meta").string("x").status().message(), "Missing required field 'meta.x'");
  // ...but object() gives a document of its own, named from itself (as before 1.5).
  EXPECT_EQ(body.object("meta")->string("x").status().message(), "Missing required field 'x'");
}

TEST(SdkJsonNested, ElementsAndMembersInDocumentOrder) {
  auto j = parse(R"({"z":[3,"a",null],"a":{"y":1,"x":2}})");
  auto elements = j.get("z").elements();
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(*elements[0].asInteger(), 3);
  EXPECT_EQ(elements[1].path(), "z[1]");
  EXPECT_EQ(elements[2].kind(), JsonKind::null);
  auto members = j.get("a").members();
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].first, "y");
  EXPECT_EQ(members[1].first, "x");
  EXPECT_EQ(members[1].second.path(), "a.x");
  EXPECT_TRUE(j.get("z").members().empty());
  EXPECT_TRUE(j.get("a").elements().empty());
  // A value outlives the Json it came from (it shares the document).
  Json kept;
  {
    auto doc = parse(R"({"deep":[{"s":"v"}]})");
    kept = doc.get("deep").at(0);
  }
  EXPECT_EQ(*kept.string("s"), "v");
}

TEST(SdkJsonNested, RepeatedKeysKeepFirstPlaceAndLastValue) {
  auto j = parse(R"({"a":1,"b":2,"a":3})");
  EXPECT_EQ(j.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*j.integer("a"), 3);
  EXPECT_EQ(j.dump(), R"({"a":3,"b":2})");
  // Many keys: linear, not quadratic (this would take minutes if quadratic).
  std::string big = "{";
  for (int i = 0; i < 200000; ++i) big += "\"k" + std::to_string(i % 100000) + "\":1,";
  big += "\"end\":0}";
  EXPECT_EQ(parse(big).size(), 100001u);
}

TEST(SdkJsonNested, StringEscapesAndUnicode) {
  auto j = parse(R"(["\"\\\/\b\f\n\r\t","\u0041\u00e9\u20ac","\ud83d\ude00","\ud800x","\udc00"])");
  EXPECT_EQ(*j.at(0).asString(), "\"\\/\b\f\n\r\t");
  EXPECT_EQ(*j.at(1).asString(), "A\xc3\xa9\xe2\x82\xac");
  EXPECT_EQ(*j.at(2).asString(), "\xf0\x9f\x98\x80");        // a surrogate pair
  EXPECT_EQ(*j.at(3).asString(), "\xef\xbf\xbdx");           // a lone high surrogate
  EXPECT_EQ(*j.at(4).asString(), "\xef\xbf\xbd");            // a lone low surrogate
  EXPECT_EQ(*parse("\"\xc3\xa9\"").asString(), "\xc3\xa9");  // raw UTF-8
  for (const char* bad : {"\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"a\x01\"",
                          "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "\"open"}) {
    SCOPED_TRACE(bad);
    auto r = Json::parse(bad);
    ASSERT_FALSE(r.isOk());
    EXPECT_THAT(r.status().message(), StartsWith("Invalid JSON: "));
    EXPECT_THAT(r.status().message(), HasSubstr(" at offset "));
  }
}

TEST(SdkJsonNested, Numbers) {
  auto j = parse(R"([0,-0,1e3,1E-2,-12.5e+1,123456789012345678901234567890,1e400])");
  EXPECT_EQ(j.at(0).kind(), JsonKind::integer);
  EXPECT_EQ(j.at(1).kind(), JsonKind::integer);
  EXPECT_EQ(j.at(2).kind(), JsonKind::number);
  EXPECT_DOUBLE_EQ(*j.at(2).asNumber(), 1000.0);
  EXPECT_DOUBLE_EQ(*j.at(3).asNumber(), 0.01);
  EXPECT_DOUBLE_EQ(*j.at(4).asNumber(), -125.0);
  EXPECT_EQ(j.at(5).kind(), JsonKind::integer);
  EXPECT_FALSE(j.at(5).asInteger().isOk());
  EXPECT_TRUE(std::isinf(*j.at(6).asNumber()));
  // Spellings survive a dump.
  EXPECT_EQ(j.dump(), R"([0,-0,1e3,1E-2,-12.5e+1,123456789012345678901234567890,1e400])");
  for (const char* bad : {"01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1.e5"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(Json::parse(bad).isOk());
  }
}

TEST(SdkJsonNested, DepthIsBounded) {
  std::string ok(256, '[');
  ok += std::string(256, ']');
  EXPECT_TRUE(Json::parse(ok).isOk());
  std::string deep(257, '[');
  deep += std::string(257, ']');
  auto r = Json::parse(deep);
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.status().message(), HasSubstr("nesting too deep"));
  // Far deeper than any stack would take: refused, not a crash.
  EXPECT_FALSE(Json::parse(std::string(1 << 20, '[')).isOk());
  EXPECT_FALSE(Json::parse(std::string(1 << 20, '{')).isOk());
}

TEST(SdkJsonNested, WhitespaceAndTrailingText) {
  EXPECT_EQ(parse(" \t\r\n{ \"a\" : [ 1 , 2 ] } \n").dump(), R"({"a":[1,2]})");
  for (const char* bad :
       {"{}x", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "\v1", "\xef\xbb\xbf{}"})
    EXPECT_FALSE(Json::parse(bad).isOk()) << bad;
}

TEST(SdkJsonWriter, CommasNestingAndEscapes) {
  JsonWriter w;
  w.beginObject()
      .member("id", "r\"1")
      .member("n", 3)
      .member("big", std::uint64_t{18446744073709551615u})
      .member("neg", std::int64_t{-9})
      .member("ok", true)
      .key("tags")
      .beginArray();
  for (const char* tag : {"a", "b\n"}) w.value(tag);
  w.endArray().key("none").null().key("empty").beginObject().endObject();
  w.key("list").beginArray().beginArray().endArray().value(1).endArray().endObject();
  EXPECT_EQ(w.text(), R"({"id":"r\"1","n":3,"big":18446744073709551615,"neg":-9,"ok":true,)"
                      R"("tags":["a","b\n"],"none":null,"empty":{},"list":[[],1]})");
  auto text = w.take();
  EXPECT_TRUE(Json::parse(text).isOk());
  EXPECT_TRUE(w.text().empty());
  w.beginArray().value(1).endArray();  // a fresh start after take()
  EXPECT_EQ(w.take(), "[1]");
}

TEST(SdkJsonWriter, NumbersScalarsAndParsedValues) {
  JsonWriter w;
  w.beginArray().value(0.1).value(1e300).value(2.0).value(-0.5);
  w.value(std::numeric_limits<double>::quiet_NaN()).value(std::numeric_limits<double>::infinity());
  w.value(JsonScalar{}).value(JsonScalar{std::int64_t{7}}).value(JsonScalar{std::string("s")});
  w.value(parse(R"({"a":[1,2.50]})").get("a")).value(Json().get("gone"));
  w.endArray();
  EXPECT_EQ(w.text(), R"([0.1,1e+300,2,-0.5,null,null,null,7,"s",[1,2.50],null])");
  JsonWriter o;
  o.beginObject()
      .optionalMember("a", std::optional<int>{})
      .optionalMember("b", std::optional<int>{2});
  EXPECT_EQ(o.endObject().text(), R"({"b":2})");
}

TEST(SdkJsonWriter, InvalidUtf8IsRepaired) {
  JsonWriter w;
  w.beginObject().member("k\xff", "v\xc3").endObject();
  EXPECT_EQ(w.text(), "{\"k\xef\xbf\xbd\":\"v\xef\xbf\xbd\"}");
  EXPECT_TRUE(Json::parse(w.text()).isOk());
}

}  // namespace
