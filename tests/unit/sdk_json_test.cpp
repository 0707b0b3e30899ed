// SDK Json / http tests: typed reads and their exact messages, integer vs
// float, lists, objects, scalars, dump order, parse errors, jsonQuote
// escaping and UTF-8 repair, Identity::hasScope, Response::error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"

namespace {

using abx::sdk::Identity;
using abx::sdk::Json;
using abx::sdk::JsonKind;
using abx::sdk::jsonQuote;
using abx::sdk::JsonScalar;
using abx::sdk::Response;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::string_view_literals;

Json parse(std::string_view text) {
  auto r = Json::parse(text);
  EXPECT_TRUE(r.isOk()) << text << ": " << (r.isOk() ? "" : r.status().message());
  return r.isOk() ? std::move(r).value() : Json();
}

const char* kDoc = R"({"s":"text","i":42,"neg":-7,"f":1.5,"whole":2.0,"t":true,"n":null,)"
                   R"("list":["a","b"],"mixed":["a",1],"empty":[],"obj":{"k":"v","z":1},)"
                   R"("big":12345678901234567890})";

TEST(SdkJson, DefaultIsEmptyObject) {
  Json j;
  EXPECT_TRUE(j.isObject());
  EXPECT_EQ(j.kind(), JsonKind::object);
  EXPECT_TRUE(j.keys().empty());
  EXPECT_EQ(j.dump(), "{}");
  EXPECT_FALSE(j.has("x"));
}

TEST(SdkJson, Kinds) {
  auto j = parse(kDoc);
  EXPECT_EQ(j.kind("s"), JsonKind::string);
  EXPECT_EQ(j.kind("i"), JsonKind::integer);
  EXPECT_EQ(j.kind("neg"), JsonKind::integer);
  EXPECT_EQ(j.kind("f"), JsonKind::number);
  EXPECT_EQ(j.kind("whole"), JsonKind::number);  // 2.0 is written as a float
  EXPECT_EQ(j.kind("t"), JsonKind::boolean);
  EXPECT_EQ(j.kind("n"), JsonKind::null);
  EXPECT_EQ(j.kind("list"), JsonKind::array);
  EXPECT_EQ(j.kind("obj"), JsonKind::object);
  EXPECT_EQ(j.kind("missing"), JsonKind::missing);
  EXPECT_TRUE(j.has("n"));  // null is present
  EXPECT_FALSE(j.has("missing"));
  EXPECT_EQ(parse("[1]").kind(), JsonKind::array);
  EXPECT_EQ(parse("[1]").kind("x"), JsonKind::missing);  // non-object has no members
  EXPECT_EQ(parse("\"s\"").kind(), JsonKind::string);
  EXPECT_EQ(parse("3").kind(), JsonKind::integer);
  EXPECT_EQ(parse("null").kind(), JsonKind::null);
}

TEST(SdkJson, StringReads) {
  auto j = parse(kDoc);
  auto s = j.string("s");
  ASSERT_TRUE(s.isOk());
  EXPECT_EQ(*s, "text");

  auto missing = j.string("x");
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().message(), "Missing required field 'x'");
  EXPECT_EQ(missing.status().type(), "ValueError");
  auto null = j.string("n");
  ASSERT_FALSE(null.isOk());
  EXPECT_EQ(null.status().message(), "Missing required field 'n'");

  EXPECT_EQ(*j.string("x", std::string("dflt")), "dflt");
  EXPECT_EQ(*j.string("n", std::string("dflt")), "dflt");
  EXPECT_EQ(*j.string("s", std::string("dflt")), "text");

  auto wrong = j.string("i");
  ASSERT_FALSE(wrong.isOk());
  EXPECT_EQ(wrong.status().message(), "Field 'i' must be a string");
  EXPECT_EQ(wrong.status().type(), "ValueError");
  // A fallback does not excuse a wrong type.
  auto wrong_fb = j.string("t", std::string("dflt"));
  ASSERT_FALSE(wrong_fb.isOk());
  EXPECT_EQ(wrong_fb.status().message(), "Field 't' must be a string");
  EXPECT_EQ(j.string("list").status().message(), "Field 'list' must be a string");
}

TEST(SdkJson, IntegerVersusFloat) {
  auto j = parse(kDoc);
  EXPECT_EQ(*j.integer("i"), 42);
  EXPECT_EQ(*j.integer("neg"), -7);
  auto f = j.integer("f");
  ASSERT_FALSE(f.isOk());
  EXPECT_EQ(f.status().message(), "Field 'f' must be an integer");
  EXPECT_EQ(j.integer("whole").status().message(), "Field 'whole' must be an integer");
  EXPECT_EQ(j.integer("s").status().message(), "Field 's' must be an integer");
  EXPECT_EQ(j.integer("t").status().message(), "Field 't' must be an integer");
  EXPECT_EQ(j.integer("x").status().message(), "Missing required field 'x'");
  EXPECT_EQ(*j.integer("x", 5), 5);
  EXPECT_EQ(*j.integer("n", 6), 6);
  auto big = j.integer("big");
  ASSERT_FALSE(big.isOk());
  EXPECT_EQ(big.status().message(), "Field 'big' must be an integer in the 64-bit range");

  auto edge = parse(R"({"max":9223372036854775807,"min":-9223372036854775808})");
  EXPECT_EQ(*edge.integer("max"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(*edge.integer("min"), std::numeric_limits<std::int64_t>::min());

  // number() takes both.
  EXPECT_DOUBLE_EQ(*j.number("f"), 1.5);
  EXPECT_DOUBLE_EQ(*j.number("i"), 42.0);
  EXPECT_DOUBLE_EQ(*j.number("whole"), 2.0);
  EXPECT_DOUBLE_EQ(*j.number("x", 0.25), 0.25);
  EXPECT_EQ(j.number("s").status().message(), "Field 's' must be a number");
  EXPECT_EQ(j.number("x").status().message(), "Missing required field 'x'");
}

TEST(SdkJson, BooleanReads) {
  auto j = parse(kDoc);
  EXPECT_TRUE(*j.boolean("t"));
  EXPECT_FALSE(*j.boolean("x", false));
  EXPECT_TRUE(*j.boolean("n", true));
  EXPECT_EQ(j.boolean("i").status().message(), "Field 'i' must be a boolean");
  EXPECT_EQ(j.boolean("s").status().message(), "Field 's' must be a boolean");
  EXPECT_EQ(j.boolean("x").status().message(), "Missing required field 'x'");
  auto zero = parse(R"({"z":0,"f":false})");
  EXPECT_FALSE(zero.boolean("z").isOk());
  EXPECT_FALSE(*zero.boolean("f"));
}

TEST(SdkJson, StringList) {
  auto j = parse(kDoc);
  EXPECT_EQ(*j.stringList("list"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(j.stringList("empty")->empty());
  EXPECT_EQ(j.stringList("mixed").status().message(), "Field 'mixed' must be an array of strings");
  EXPECT_EQ(j.stringList("s").status().message(), "Field 's' must be an array of strings");
  EXPECT_EQ(j.stringList("x").status().message(), "Missing required field 'x'");
  EXPECT_EQ(*j.stringList("x", std::vector<std::string>{"d"}), std::vector<std::string>{"d"});
  EXPECT_EQ(*j.stringList("n", std::vector<std::string>{}), std::vector<std::string>{});
}

TEST(SdkJson, ObjectReads) {
  auto j = parse(kDoc);
  auto obj = j.object("obj");
  ASSERT_TRUE(obj.isOk());
  EXPECT_TRUE(obj->isObject());
  EXPECT_EQ(*obj->string("k"), "v");
  EXPECT_EQ(obj->keys(), (std::vector<std::string>{"k", "z"}));

  auto absent = j.object("x");
  ASSERT_TRUE(absent.isOk());
  EXPECT_TRUE(absent->isObject());
  EXPECT_TRUE(absent->keys().empty());
  EXPECT_TRUE(j.object("n").isOk());
  EXPECT_EQ(j.object("x", true).status().message(), "Missing required field 'x'");
  EXPECT_EQ(j.object("n", true).status().message(), "Missing required field 'n'");
  EXPECT_EQ(j.object("list").status().message(), "Field 'list' must be an object");
  EXPECT_EQ(j.object("s").status().message(), "Field 's' must be an object");

  // A copy shares the tree and survives the original.
  Json copy;
  {
    auto inner = parse(R"({"a":{"b":"c"}})");
    copy = *inner.object("a");
  }
  EXPECT_EQ(*copy.string("b"), "c");
}

TEST(SdkJson, Scalars) {
  auto j = parse(kDoc);
  EXPECT_EQ(*j.scalar("s"), JsonScalar{std::string("text")});
  EXPECT_EQ(*j.scalar("i"), JsonScalar{std::int64_t{42}});
  EXPECT_EQ(*j.scalar("f"), JsonScalar{1.5});
  EXPECT_EQ(*j.scalar("t"), JsonScalar{true});
  EXPECT_EQ(*j.scalar("n"), JsonScalar{});
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*j.scalar("n")));
  // Out of int64 range falls back to a double rather than failing.
  auto big = j.scalar("big");
  ASSERT_TRUE(big.isOk());
  ASSERT_TRUE(std::holds_alternative<double>(*big));
  EXPECT_DOUBLE_EQ(std::get<double>(*big), 12345678901234567890.0);
  EXPECT_EQ(j.scalar("x").status().message(), "Missing required field 'x'");
  EXPECT_EQ(j.scalar("list").status().message(),
            "Field 'list' must be a string, number, boolean or null");
  EXPECT_EQ(j.scalar("obj").status().message(),
            "Field 'obj' must be a string, number, boolean or null");
}

TEST(SdkJson, DumpPreservesKeyOrder) {
  const char* text =
      R"({"zeta":1,"alpha":"x","mid":[1,2,{"b":1,"a":2}],"obj":{"y":null,"x":true}})";
  auto j = parse(text);
  EXPECT_EQ(j.dump(), text);
  EXPECT_EQ(j.keys(), (std::vector<std::string>{"zeta", "alpha", "mid", "obj"}));
  EXPECT_EQ(j.dump("mid"), R"([1,2,{"b":1,"a":2}])");
  EXPECT_EQ(j.dump("obj"), R"({"y":null,"x":true})");
  EXPECT_EQ(j.dump("alpha"), R"("x")");
  EXPECT_EQ(j.dump("zeta"), "1");
  EXPECT_EQ(j.dump("missing"), "");
  EXPECT_EQ(parse(R"({"s":"a\"b\\c\n"})").dump(), R"({"s":"a\"b\\c\n"})");
}

TEST(SdkJson, TopLevelScalars) {
  // RFC 8259 allows any value at the top level.
  auto s = parse(" \"s\" ");
  EXPECT_EQ(s.kind(), JsonKind::string);
  EXPECT_EQ(s.dump(), "\"s\"");
  EXPECT_FALSE(s.isObject());
  EXPECT_TRUE(s.keys().empty());
  EXPECT_EQ(s.kind("x"), JsonKind::missing);
  EXPECT_EQ(parse("-3").kind(), JsonKind::integer);
  EXPECT_EQ(parse("-3").dump(), "-3");
  EXPECT_EQ(parse("2.5").kind(), JsonKind::number);
  EXPECT_EQ(parse("true").kind(), JsonKind::boolean);
  EXPECT_EQ(parse("true").dump(), "true");
  EXPECT_EQ(parse("null\n").kind(), JsonKind::null);
  EXPECT_EQ(parse("[1]").dump(), "[1]");
}

TEST(SdkJson, ParseErrors) {
  for (const char* bad : {"", "   ", "{", "{\"a\":}", "{\"a\" 1}", "[1,]x", "nul", "{'a':1}", "1,2",
                          "1],[2", "\"a\"]", "1 2", "{} {}", "[1] [2]", "tru", "'s'"}) {
    SCOPED_TRACE(bad);
    auto r = Json::parse(bad);
    ASSERT_FALSE(r.isOk());
    EXPECT_THAT(r.status().message(), StartsWith("Invalid JSON"));
    EXPECT_EQ(r.status().type(), "ValueError");
  }
}

TEST(SdkJson, UnicodeRoundTrip) {
  auto j = parse(R"({"s":"caf\u00e9 \u20ac"})");
  EXPECT_EQ(*j.string("s"), "caf\xc3\xa9 \xe2\x82\xac");
}

TEST(JsonQuote, EscapesQuotesBackslashAndControlChars) {
  EXPECT_EQ(jsonQuote(""), R"("")");
  EXPECT_EQ(jsonQuote("plain"), R"("plain")");
  EXPECT_EQ(jsonQuote("a\"b"), R"("a\"b")");
  EXPECT_EQ(jsonQuote("a\\b"), R"("a\\b")");
  EXPECT_EQ(jsonQuote("\n\r\t\b\f"), R"("\n\r\t\b\f")");
  EXPECT_EQ(jsonQuote("\x01\x1f"), R"("\u0001\u001f")");
  EXPECT_EQ(jsonQuote("a\0b"sv), R"("a\u0000b")");
  EXPECT_EQ(jsonQuote("\x7f/"), "\"\x7f/\"");  // DEL and '/' need no escape
}

TEST(JsonQuote, KeepsValidUtf8) {
  EXPECT_EQ(jsonQuote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");            // 2 bytes
  EXPECT_EQ(jsonQuote("\xe2\x82\xac"), "\"\xe2\x82\xac\"");          // 3 bytes
  EXPECT_EQ(jsonQuote("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");  // 4 bytes
  EXPECT_EQ(jsonQuote("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");  // U+10FFFF
  EXPECT_EQ(jsonQuote("\xef\xbf\xbd"), "\"\xef\xbf\xbd\"");          // U+FFFD itself
}

TEST(JsonQuote, ReplacesInvalidUtf8WithReplacementChar) {
  const std::string R = "\xef\xbf\xbd";
  EXPECT_EQ(jsonQuote("a\xff"
                      "b"),
            "\"a" + R + "b\"");                                           // invalid lead byte
  EXPECT_EQ(jsonQuote("\x80"), "\"" + R + "\"");                          // lone continuation
  EXPECT_EQ(jsonQuote("\xc3"), "\"" + R + "\"");                          // truncated at end
  EXPECT_EQ(jsonQuote("\xc3(x"), "\"" + R + "(x\"");                      // bad continuation
  EXPECT_EQ(jsonQuote("\xc0\xaf"), "\"" + R + R + "\"");                  // overlong '/'
  EXPECT_EQ(jsonQuote("\xe0\x80\xaf"), "\"" + R + R + R + "\"");          // overlong 3-byte
  EXPECT_EQ(jsonQuote("\xed\xa0\x80"), "\"" + R + R + R + "\"");          // surrogate D800
  EXPECT_EQ(jsonQuote("\xf4\x90\x80\x80"), "\"" + R + R + R + R + "\"");  // > U+10FFFF
  EXPECT_EQ(jsonQuote("\xe2\x82"), "\"" + R + R + "\"");                  // truncated 3-byte
  // Valid text after a bad byte is kept intact.
  EXPECT_EQ(jsonQuote("\xff\xe2\x82\xac"), "\"" + R + "\xe2\x82\xac\"");
  // The output always parses as JSON.
  auto parsed = Json::parse("{\"k\":" + jsonQuote("x\xff\x01\"y") + "}");
  ASSERT_TRUE(parsed.isOk());
  EXPECT_EQ(*parsed->string("k"), "x" + R + "\x01\"y");
}

TEST(IdentityHasScope, Matching) {
  auto with = [](std::vector<std::string> scopes) {
    Identity id;
    id.id = "t";
    id.scopes = std::move(scopes);
    return id;
  };
  EXPECT_TRUE(Identity{}.hasScope("anything"));  // default: anonymous with "*"
  EXPECT_TRUE(with({"*"}).hasScope("files:read"));
  EXPECT_TRUE(with({"files:read"}).hasScope("files:read"));
  EXPECT_FALSE(with({"files:read"}).hasScope("files:write"));
  EXPECT_FALSE(with({}).hasScope("files:read"));

  EXPECT_TRUE(with({"files:*"}).hasScope("files:read"));
  EXPECT_TRUE(with({"files:*"}).hasScope("files:delete"));
  EXPECT_FALSE(with({"files:*"}).hasScope("process:run"));
  EXPECT_FALSE(with({"files:*"}).hasScope("filesx:read"));

  EXPECT_TRUE(with({"commands:run"}).hasScope("commands:run"));
  EXPECT_TRUE(with({"commands:run"}).hasScope("commands:run:hello"));
  EXPECT_FALSE(with({"commands:run:hello"}).hasScope("commands:run"));
  EXPECT_FALSE(with({"commands:run:hello"}).hasScope("commands:run:other"));
  EXPECT_FALSE(with({"commands:run"}).hasScope("commands:runner"));

  EXPECT_FALSE(with({"files"}).hasScope("files:read"));
  EXPECT_FALSE(with({"files:read"}).hasScope("files"));
  EXPECT_TRUE(with({"process:run", "files:read"}).hasScope("files:read"));
}

TEST(SdkResponse, ErrorBodyIsExact) {
  auto r = Response::error(404, "Unknown command 'x'", "ValueError");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"error":"Unknown command 'x'","type":"ValueError"})");
  auto coded = Response::error(429, "slow \"down\"", "PolicyError", "rate_limited");
  EXPECT_EQ(coded.status, 429);
  EXPECT_EQ(coded.body, R"({"error":"slow \"down\"","type":"PolicyError","code":"rate_limited"})");
  EXPECT_TRUE(coded.headers.empty());
  auto ok = Response::json("{\"a\":1}", 201);
  EXPECT_EQ(ok.status, 201);
  EXPECT_EQ(ok.body, "{\"a\":1}");
}

TEST(SdkRequest, Accessors) {
  abx::sdk::Request r;
  r.headers = {{"x-a", "1"}, {"x-a", "2"}, {"content-type", "text/plain"}};
  r.path_params = {{"id", "7"}};
  r.query = {{"q", ""}};
  EXPECT_EQ(r.header("x-a"), "1");  // the first one
  EXPECT_EQ(r.header("content-type"), "text/plain");
  EXPECT_EQ(r.header("X-A"), std::nullopt);  // names are stored lower-case
  EXPECT_EQ(r.param("id"), "7");
  EXPECT_EQ(r.param("x"), std::nullopt);
  EXPECT_EQ(r.queryParam("q"), "");
  EXPECT_EQ(r.queryParam("z"), std::nullopt);
}

}  // namespace
