// The encoded spellings of a secret that redaction must also catch.
#include <gtest/gtest.h>

#include <algorithm>

#include "abx/sdk/secret_spellings.h"

namespace abx::plugins::agents {
namespace {

using sdk::encodeUriComponent;
using sdk::jsonEscape;
using sdk::secretSpellings;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(SecretSpellings, EncodeUriComponentMatchesJavaScript) {
  // encodeURIComponent("a b/c?d=e&f+g~h*i'j(k)l!m.n_o-p\u00e9") in node.
  EXPECT_EQ(encodeUriComponent("a b/c?d=e&f+g~h*i'j(k)l!m.n_o-p\xC3\xA9"),
            "a%20b%2Fc%3Fd%3De%26f%2Bg~h*i'j(k)l!m.n_o-p%C3%A9");
}

TEST(SecretSpellings, JsonEscape) {
  EXPECT_EQ(jsonEscape("a\"b\\c/d\n\t\x01"), "a\\\"b\\\\c/d\\n\\t\\u0001");
  EXPECT_EQ(jsonEscape("a/b", {.escape_slash = true}), "a\\/b");
  EXPECT_EQ(jsonEscape("\x1b", {.uppercase_hex = true}), "\\u001B");
  EXPECT_EQ(jsonEscape("\xC3\xA9", {.ascii_only = true}), "\\u00e9");
  EXPECT_EQ(jsonEscape("\xF0\x9F\x98\x80", {.ascii_only = true}), "\\ud83d\\ude00");
  EXPECT_EQ(jsonEscape("\xC3\xA9"), "\xC3\xA9");
}

TEST(SecretSpellings, PlainSecretHasOneSpelling) {
  EXPECT_EQ(secretSpellings("abcDEF123_-"), std::vector<std::string>{"abcDEF123_-"});
}

TEST(SecretSpellings, SpecialCharactersGiveEveryEncoding) {
  const auto all = secretSpellings("p/w\"d+1");
  EXPECT_TRUE(has(all, "p/w\"d+1"));
  EXPECT_TRUE(has(all, "p%2Fw%22d%2B1"));
  EXPECT_TRUE(has(all, "p%2fw%22d%2b1"));
  EXPECT_TRUE(has(all, "p/w\\\"d+1"));
  EXPECT_TRUE(has(all, "p\\/w\\\"d+1"));
  EXPECT_EQ(all.size(), 5u);
}

}  // namespace
}  // namespace abx::plugins::agents
