// toml::string and friends: what codex's TOML parser must read back as the
// exact text (quotes, backslashes, newlines, control characters and DEL).
#include <gtest/gtest.h>

#include "toml_text.h"

namespace abx::plugins::adapters {
namespace {

TEST(TomlText, BasicStringsEscapeWhatTomlForbidsRaw) {
  EXPECT_EQ(toml::string("plain"), "\"plain\"");
  EXPECT_EQ(toml::string("say \"hi\"\\now\n\tend"), "\"say \\\"hi\\\"\\\\now\\n\\tend\"");
  EXPECT_EQ(toml::string(std::string("\x01") + "\x7f"), "\"\\u0001\\u007F\"");
  EXPECT_EQ(toml::string("grüße"), "\"grüße\"");  // UTF-8 passes as it is
}

TEST(TomlText, ArraysAndInlineTablesQuoteTheirParts) {
  EXPECT_EQ(toml::stringArray({"a", "b\"c"}), "[\"a\", \"b\\\"c\"]");
  EXPECT_EQ(toml::inlineTable({{"url", toml::string("http://x")}, {"n", "1"}}),
            "{\"url\" = \"http://x\", \"n\" = 1}");
}

}  // namespace
}  // namespace abx::plugins::adapters
