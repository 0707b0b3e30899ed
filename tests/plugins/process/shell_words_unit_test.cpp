// splitShellWords: POSIX quoting without expansion, as a table; the quoting
// helpers round-trip through it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shell_words.h"

namespace abx::plugins::process {
namespace {

using Words = std::vector<std::string>;

struct Case {
  const char* text;
  Words words;
};

class SplitShellWords : public ::testing::TestWithParam<Case> {};

TEST_P(SplitShellWords, Splits) {
  auto result = splitShellWords(GetParam().text);
  ASSERT_TRUE(result) << result.status().message();
  EXPECT_EQ(*result, GetParam().words) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, SplitShellWords,
    ::testing::Values(
        Case{"", {}}, Case{"   \t\n ", {}}, Case{"ls", {"ls"}},
        Case{"ls -la /tmp", {"ls", "-la", "/tmp"}}, Case{"  a   b  ", {"a", "b"}},
        Case{"a\tb\nc", {"a", "b", "c"}},
        // single quotes: everything literal, backslashes too
        Case{"echo 'a b'", {"echo", "a b"}}, Case{R"(echo 'a\nb')", {"echo", R"(a\nb)"}},
        Case{R"(echo 'it'\''s')", {"echo", "it's"}}, Case{"echo '\"'", {"echo", "\""}},
        // double quotes: backslash escapes $ ` " \ and newline only
        Case{R"(echo "a b")", {"echo", "a b"}}, Case{R"(echo "a\"b")", {"echo", "a\"b"}},
        Case{R"(echo "a\\b")", {"echo", R"(a\b)"}}, Case{R"(echo "a\$b")", {"echo", "a$b"}},
        Case{R"(echo "a\nb")", {"echo", R"(a\nb)"}}, Case{"echo \"a\\\nb\"", {"echo", "ab"}},
        Case{R"(echo "it's")", {"echo", "it's"}},
        // backslash outside quotes
        Case{R"(echo a\ b)", {"echo", "a b"}}, Case{R"(echo \'x\')", {"echo", "'x'"}},
        Case{R"(echo \\)", {"echo", "\\"}}, Case{"echo a\\\nb", {"echo", "ab"}},
        Case{"echo \\\n b", {"echo", "b"}},
        // adjacent pieces form one word; empty quotes are empty words
        Case{R"(a"b"'c'd)", {"abcd"}}, Case{"echo '' \"\"", {"echo", "", ""}}, Case{"x=''", {"x="}},
        // nothing is expanded and no operator is special
        Case{"echo $HOME ~ * $(id) `id`", {"echo", "$HOME", "~", "*", "$(id)", "`id`"}},
        Case{"echo a > f && b | c; d #e", {"echo", "a", ">", "f", "&&", "b", "|", "c;", "d", "#e"}},
        Case{"sh -c 'echo o1; sleep 0.1; echo e1 >&2'",
             {"sh", "-c", "echo o1; sleep 0.1; echo e1 >&2"}},
        Case{"printf '%s\\n' \"\xc3\xa9t\xc3\xa9\"", {"printf", "%s\\n", "\xc3\xa9t\xc3\xa9"}}));

TEST(SplitShellWordsErrors, UnbalancedQuotesAndDanglingBackslash) {
  for (const char* text :
       {"echo 'abc", "echo \"abc", "'", "\"", "echo \"a\\\"", "a'b\"c'\"", "echo 'it\\'s'"}) {
    auto result = splitShellWords(text);
    ASSERT_FALSE(result) << text;
    EXPECT_EQ(result.status().message(), "No closing quotation") << text;
    EXPECT_EQ(result.status().type(), "ValueError");
  }
  auto dangling = splitShellWords("echo a\\");
  ASSERT_FALSE(dangling);
  EXPECT_EQ(dangling.status().message(), "No escaped character");
}

TEST(QuoteShellWord, RoundTrips) {
  EXPECT_EQ(quoteShellWord("plain-word_1.txt"), "plain-word_1.txt");
  EXPECT_EQ(quoteShellWord(""), "''");
  EXPECT_EQ(quoteShellWord("a b"), "'a b'");
  EXPECT_EQ(quoteShellWord("it's"), R"('it'\''s')");
  const Words argv = {"sh", "-c", "echo \"$HOME\" 'x' \\ `id`", "", "a\nb", "it's"};
  auto back = splitShellWords(joinShellWords(argv));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, argv);
}

}  // namespace
}  // namespace abx::plugins::process
