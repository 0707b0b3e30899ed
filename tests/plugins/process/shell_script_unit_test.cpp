// Reading the simple commands of a sh -c string (shell_script.h): quoting,
// operators, redirections, compound commands, functions, fixed and expanded
// words, and the constructs refused as unjudgeable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "shell_script.h"

namespace abx::plugins::process {
namespace {

using Strings = std::vector<std::string>;

/** The commands' words, each command joined by spaces. */
Strings commands(const std::string& text) {
  auto script = parseShellScript(text);
  EXPECT_TRUE(script) << text << ": " << script.status().message();
  Strings out;
  if (!script) return out;
  for (const auto& command : script->commands) {
    std::string line;
    for (const auto& word : command.words) line += (line.empty() ? "" : " ") + word.text;
    out.push_back(line);
  }
  return out;
}

std::string refusal(const std::string& text) {
  auto script = parseShellScript(text);
  EXPECT_FALSE(script) << text;
  return script ? std::string() : script.status().message();
}

TEST(ShellScript, SplitsCommandsAtOperators) {
  EXPECT_EQ(commands("a x; b && c || d | e & f\ng"),
            (Strings{"a x", "b", "c", "d", "e", "f", "g"}));
  EXPECT_EQ(commands("a |& b"), (Strings{"a", "b"}));
  EXPECT_EQ(commands("(a; b) && { c; }"), (Strings{"a", "b", "c"}));
}

TEST(ShellScript, QuotesAndEscapesAreRemoved) {
  EXPECT_EQ(commands("'b'\"a\"s\\h 'x y'"), (Strings{"bash x y"}));
  EXPECT_EQ(commands("echo \"a\\\"b\" c\\\nd"), (Strings{"echo a\"b cd"}));
}

TEST(ShellScript, RedirectionsAreNotWords) {
  EXPECT_EQ(commands("a > f 2>&1 < in >> g &> h"), (Strings{"a"}));
  EXPECT_EQ(commands("> f a"), (Strings{"a"}));
  EXPECT_EQ(commands("a {fd}> f"), (Strings{"a"}));
  EXPECT_EQ(commands("a <<< word"), (Strings{"a"}));
}

TEST(ShellScript, CompoundCommandsExposeTheirBodies) {
  EXPECT_EQ(commands("if a; then b; elif c; then d; else e; fi"),
            (Strings{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(commands("while a; do b; done; until c; do d; done"), (Strings{"a", "b", "c", "d"}));
  EXPECT_EQ(commands("for x in 1 2; do b $x; done"), (Strings{"b $x"}));
  EXPECT_EQ(commands("for x\ndo b; done"), (Strings{"b"}));
  EXPECT_EQ(commands("case $v in a|b) x;; (c) y;; *) z;; esac; w"), (Strings{"x", "y", "z", "w"}));
  EXPECT_EQ(commands("! a; time -p b"), (Strings{"a", "b"}));
  auto script = parseShellScript("f() { a; }; function g { b; }; f; g");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->functions, (Strings{"f", "g"}));
  EXPECT_EQ(commands("f() { a; }; function g { b; }; f; g"), (Strings{"a", "b", "f", "g"}));
}

TEST(ShellScript, AssignmentsBeforeACommandAreDropped) {
  EXPECT_EQ(commands("A=1 B=\"x y\" cmd A=2"), (Strings{"cmd A=2"}));
  EXPECT_EQ(commands("A=1"), Strings{});
}

TEST(ShellScript, WordsThatExpandAreNotFixed) {
  auto script = parseShellScript("a $x \"$y\" ${z} * ~/p {a,b} 'lit$' \\$w");
  ASSERT_TRUE(script);
  const auto& words = script->commands.at(0).words;
  ASSERT_EQ(words.size(), 9u);
  const std::vector<bool> fixed = {true, false, false, false, false, false, false, true, true};
  for (std::size_t i = 0; i < fixed.size(); ++i) EXPECT_EQ(words[i].fixed, fixed[i]) << i;
  EXPECT_EQ(words[7].text, "lit$");
  EXPECT_EQ(words[8].text, "$w");
}

TEST(ShellScript, CommentsEndAtTheLine) {
  EXPECT_EQ(commands("a # b; c\nd"), (Strings{"a", "d"}));
  EXPECT_EQ(commands("a#b"), (Strings{"a#b"}));
}

TEST(ShellScript, RefusesWhatCannotBeJudged) {
  EXPECT_THAT(refusal("echo $(id)"), ::testing::HasSubstr("command substitution"));
  EXPECT_THAT(refusal("echo `id`"), ::testing::HasSubstr("command substitution"));
  EXPECT_THAT(refusal("echo \"`id`\""), ::testing::HasSubstr("command substitution"));
  EXPECT_THAT(refusal("echo ${x:-$(id)}"), ::testing::HasSubstr("command substitution"));
  EXPECT_THAT(refusal("echo $((1))"), ::testing::HasSubstr("arithmetic"));
  EXPECT_THAT(refusal("echo $[1]"), ::testing::HasSubstr("arithmetic"));
  EXPECT_THAT(refusal("((x++))"), ::testing::HasSubstr("arithmetic"));
  EXPECT_THAT(refusal("a <(b)"), ::testing::HasSubstr("process substitution"));
  EXPECT_THAT(refusal("a >(b)"), ::testing::HasSubstr("process substitution"));
  EXPECT_THAT(refusal("a <<E\nx\nE"), ::testing::HasSubstr("here-document"));
  EXPECT_THAT(refusal("[[ a ]]"), ::testing::HasSubstr("[["));
  EXPECT_THAT(refusal("coproc a"), ::testing::HasSubstr("coproc"));
  EXPECT_THAT(refusal("echo 'a"), ::testing::HasSubstr("unterminated"));
  EXPECT_THAT(refusal("echo \"a"), ::testing::HasSubstr("unterminated"));
  EXPECT_THAT(refusal("echo a\\"), ::testing::HasSubstr("backslash"));
  EXPECT_THAT(refusal("a[1]=x"), ::testing::HasSubstr("array"));
  for (const char* text :
       {"echo ${!x}", "echo ${x[1]}", "echo ${x@P}", "echo ${x:1:2}", "echo ${@:1}"})
    EXPECT_FALSE(parseShellScript(text)) << text;
  for (const char* text :
       {"PATH=/x a", "export PATH", "unset PATH", "echo ${PATH:=x}", "LD_PRELOAD=x a",
        "BASH_ENV=x bash -c a", "PS4=x", "ENV=x sh", "read PATH"})
    EXPECT_THAT(refusal(text), ::testing::HasSubstr("names")) << text;
  EXPECT_TRUE(parseShellScript("echo $PATH ${PATH} \"$PATH\" ${HOME:-/} ${#x} ${x%.c}"));
}

}  // namespace
}  // namespace abx::plugins::process
