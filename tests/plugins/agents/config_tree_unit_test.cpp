// The neutral document tree: YAML typing by the core schema, JSON via POCO,
// and the same shape from both spellings.
#include <gtest/gtest.h>

#include "definition/config_tree.h"

namespace abx::plugins::agents {
namespace {

using Kind = ConfigValue::Kind;

TEST(ConfigTree, YamlPlainScalarsAreTyped) {
  auto tree = configFromYaml(R"(
n: 40
neg: -3
f: 1.5
t: true
nul: null
tilde: ~
empty:
s: hello
quoted_number: "40"
quoted_bool: 'true'
)");
  ASSERT_TRUE(tree) << tree.status().message();
  EXPECT_EQ(tree->find("n")->kind, Kind::integer);
  EXPECT_EQ(tree->find("n")->integer, 40);
  EXPECT_EQ(tree->find("neg")->integer, -3);
  EXPECT_EQ(tree->find("f")->kind, Kind::number);
  EXPECT_DOUBLE_EQ(tree->find("f")->number, 1.5);
  EXPECT_EQ(tree->find("t")->kind, Kind::boolean);
  EXPECT_TRUE(tree->find("t")->boolean);
  EXPECT_EQ(tree->find("nul")->kind, Kind::null);
  EXPECT_EQ(tree->find("tilde")->kind, Kind::null);
  EXPECT_EQ(tree->find("empty")->kind, Kind::null);
  EXPECT_EQ(tree->find("s")->kind, Kind::string);
  EXPECT_EQ(tree->find("quoted_number")->kind, Kind::string);
  EXPECT_EQ(tree->find("quoted_number")->text, "40");
  EXPECT_EQ(tree->find("quoted_bool")->kind, Kind::string);
  EXPECT_EQ(tree->find("missing"), nullptr);
}

TEST(ConfigTree, YamlAndJsonGiveTheSameShape) {
  auto yaml = configFromYaml("a: [1, x, {b: 2.5}]\nc: {d: null}\n");
  auto json = configFromJson(R"({"a": [1, "x", {"b": 2.5}], "c": {"d": null}})");
  ASSERT_TRUE(yaml);
  ASSERT_TRUE(json) << json.status().message();
  for (const ConfigValue* root : {&*yaml, &*json}) {
    const auto* a = root->find("a");
    ASSERT_NE(a, nullptr);
    ASSERT_EQ(a->kind, Kind::array);
    ASSERT_EQ(a->items.size(), 3u);
    EXPECT_EQ(a->items[0].kind, Kind::integer);
    EXPECT_EQ(a->items[1].text, "x");
    EXPECT_DOUBLE_EQ(a->items[2].find("b")->number, 2.5);
    EXPECT_EQ(root->find("c")->find("d")->kind, Kind::null);
  }
}

TEST(ConfigTree, JsonKeepsMemberOrder) {
  auto json = configFromJson(R"({"z": 1, "a": 2, "m": 3})");
  ASSERT_TRUE(json);
  ASSERT_EQ(json->members.size(), 3u);
  EXPECT_EQ(json->members[0].first, "z");
  EXPECT_EQ(json->members[1].first, "a");
  EXPECT_EQ(json->members[2].first, "m");
}

TEST(ConfigTree, SyntaxErrorsAreValueErrors) {
  auto yaml = configFromYaml("a: [1, 2\nb: c");
  ASSERT_FALSE(yaml);
  EXPECT_EQ(yaml.status().type(), "ValueError");
  EXPECT_NE(yaml.status().message().find("line"), std::string::npos);
  auto json = configFromJson("{\"a\": ");
  ASSERT_FALSE(json);
  EXPECT_EQ(json.status().type(), "ValueError");
}

}  // namespace
}  // namespace abx::plugins::agents
