// Unit: the lenient reads the agent output parsers use (a member that is
// absent, null or of another type reads as empty; whole doubles count as
// integers; dumps keep the document's spelling) and the indented JSON of the
// adapters' config files.
#include <gtest/gtest.h>

#include "json_pretty.h"
#include "json_reads.h"

namespace abx::plugins::adapters {
namespace {

TEST(JsonReads, ANonObjectLineIsMissing) {
  EXPECT_TRUE(json::parseObject(R"({"type":"x"})").isObject());
  for (const char* line : {"[1,2]", "\"text\"", "not json", "", R"({"a":1} trailing)"}) {
    const sdk::Json o = json::parseObject(line);
    EXPECT_TRUE(o.isMissing()) << line;
    EXPECT_EQ(json::str(o, "type"), "") << line;
    EXPECT_EQ(json::dump(o), "{}") << line;
  }
}

TEST(JsonReads, WrongTypesReadAsEmpty) {
  const sdk::Json o = json::parseObject(
      R"({"s":"text","n":3,"f":2.0,"h":2.5,"b":true,"z":null,"o":{"k":"v"},"a":[1,"x"],)"
      R"("big":12345678901234567890,"nb":"7"})");
  EXPECT_EQ(json::str(o, "s"), "text");
  EXPECT_EQ(json::str(o, "n"), "");
  EXPECT_EQ(json::str(o, "missing"), "");
  EXPECT_TRUE(json::obj(o, "o").isObject());
  EXPECT_FALSE(json::obj(o, "a").isObject());
  EXPECT_FALSE(json::obj(o, "s").isObject());
  EXPECT_EQ(json::str(json::obj(o, "s"), "k"), "");
  EXPECT_TRUE(json::arr(o, "a").isArray());
  EXPECT_FALSE(json::arr(o, "o").isArray());
  EXPECT_EQ(json::integer(o, "n"), 3);
  EXPECT_EQ(json::integer(o, "f"), 2);  // a whole double counts
  EXPECT_EQ(json::integer(o, "h"), std::nullopt);
  EXPECT_EQ(json::integer(o, "big"), std::nullopt);  // beyond int64
  EXPECT_EQ(json::integer(o, "nb"), std::nullopt);
  EXPECT_EQ(json::integer(o, "z"), std::nullopt);
  EXPECT_DOUBLE_EQ(json::number(o, "h"), 2.5);
  EXPECT_DOUBLE_EQ(json::number(o, "n"), 3);
  EXPECT_DOUBLE_EQ(json::number(o, "s"), 0);
  EXPECT_TRUE(json::flag(o, "b"));
  EXPECT_FALSE(json::flag(o, "n"));
  EXPECT_FALSE(json::flag(o, "missing"));
}

TEST(JsonReads, DumpsKeepTheDocumentsSpelling) {
  const sdk::Json o = json::parseObject(
      R"({"input":{"path":"/tmp/é","n":1.50,"e":1e3,"l":[true,null]},"z":null,"s":"a\"b"})");
  EXPECT_EQ(json::dump(o, "input"), R"({"path":"/tmp/é","n":1.50,"e":1e3,"l":[true,null]})");
  EXPECT_EQ(json::dump(o, "z"), "");  // null reads as absent
  EXPECT_EQ(json::dump(o, "missing"), "");
  EXPECT_EQ(json::dump(o, "s"), R"("a\"b")");
  EXPECT_EQ(json::text(o, "s"), "a\"b");  // a string as it is
  EXPECT_EQ(json::text(o, "input"), json::dump(o, "input"));
  EXPECT_EQ(json::text(o, "z"), "");
}

TEST(JsonPretty, TwoSpacesPerLevelAndEmptyContainersOnOneLine) {
  auto value = sdk::Json::parse(R"({"a":{"b":[1,"x",{}],"c":[]},"d":"q\"/"})");
  ASSERT_TRUE(value);
  EXPECT_EQ(prettyJson(*value),
            "{\n"
            "  \"a\": {\n"
            "    \"b\": [\n"
            "      1,\n"
            "      \"x\",\n"
            "      {}\n"
            "    ],\n"
            "    \"c\": []\n"
            "  },\n"
            "  \"d\": \"q\\\"/\"\n"
            "}");
  EXPECT_EQ(prettyJson(*sdk::Json::parse("{}")), "{}");
  EXPECT_EQ(prettyJson(*sdk::Json::parse("7")), "7");
}

}  // namespace
}  // namespace abx::plugins::adapters
