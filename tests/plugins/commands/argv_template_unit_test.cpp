// argv templates: which braces are placeholders, how absent arguments
// expand, and that substituted text always stays one argv element.
#include <gtest/gtest.h>

#include "argv_template.h"

namespace abx::plugins::commands {
namespace {

using sdk::CommandArgs;
using sdk::CommandValue;

TEST(CommandsArgvTemplate, FindsIdentifierPlaceholdersOnly) {
  EXPECT_EQ(placeholderNames("Hello, {name}!"), std::vector<std::string>{"name"});
  EXPECT_EQ(placeholderNames("{a}{b_2}{a}"), (std::vector<std::string>{"a", "b_2", "a"}));
  EXPECT_TRUE(placeholderNames("{}").empty());
  EXPECT_TRUE(placeholderNames("{print $1}").empty());
  EXPECT_TRUE(placeholderNames("${HOME}").empty());
  EXPECT_TRUE(placeholderNames("{1abc}").empty());
  EXPECT_TRUE(placeholderNames("{name").empty());
  EXPECT_TRUE(placeholderNames("name}").empty());
  EXPECT_EQ(placeholderNames("{{name}}"), std::vector<std::string>{"name"});
}

TEST(CommandsArgvTemplate, ExpandsEachElementIntoExactlyOneArgument) {
  CommandArgs args{{"name", CommandValue(std::string("a b; rm -rf / \"q\" 'x' $(id)"))}};
  auto argv = expandArgv({"/bin/echo", "Hello, {name}!"}, args);
  ASSERT_EQ(argv.size(), 2u);
  EXPECT_EQ(argv[1], "Hello, a b; rm -rf / \"q\" 'x' $(id)!");
}

TEST(CommandsArgvTemplate, RendersTypedValues) {
  CommandArgs args{
      {"n", CommandValue(std::int64_t{3})}, {"f", CommandValue(0.5)}, {"b", CommandValue(true)}};
  auto argv = expandArgv({"prog", "-n{n}", "--f={f}", "{b}", "${b}"}, args);
  EXPECT_EQ(argv, (std::vector<std::string>{"prog", "-n3", "--f=0.5", "true", "${b}"}));
}

TEST(CommandsArgvTemplate, DropsAnElementThatIsOnlyAnAbsentArgument) {
  auto argv = expandArgv({"ls", "-l", "{path}"}, {});
  EXPECT_EQ(argv, (std::vector<std::string>{"ls", "-l"}));
}

TEST(CommandsArgvTemplate, AbsentArgumentInsideAnElementIsEmptyText) {
  auto argv = expandArgv({"prog", "--path={path}", ""}, {});
  EXPECT_EQ(argv, (std::vector<std::string>{"prog", "--path=", ""}));
}

TEST(CommandsArgvTemplate, PresentEmptyStringKeepsTheElement) {
  auto argv = expandArgv({"prog", "{path}"}, {{"path", CommandValue(std::string())}});
  EXPECT_EQ(argv, (std::vector<std::string>{"prog", ""}));
}

TEST(CommandsArgvTemplate, ArgumentsThatWouldBeReadAsOptions) {
  const std::vector<std::string> argv = {"git", "log", "{rev}", "--format={fmt}", "x{y}"};
  auto with = [](std::initializer_list<std::pair<const std::string, CommandValue>> values) {
    return CommandArgs(values);
  };
  EXPECT_EQ(optionLikeArgument(argv, with({{"rev", std::string("--output=/x")}}), {}), "rev");
  EXPECT_EQ(optionLikeArgument(argv, with({{"rev", std::string("-")}}), {}), "rev");
  EXPECT_EQ(optionLikeArgument(argv, with({{"rev", std::string("HEAD")}}), {}), std::nullopt);
  // After the author's own text, a dash is data.
  EXPECT_EQ(
      optionLikeArgument(argv, with({{"fmt", std::string("-x")}, {"y", std::string("-z")}}), {}),
      std::nullopt);
  // Declared allow_dash.
  EXPECT_EQ(optionLikeArgument(argv, with({{"rev", std::string("-n")}}), {"rev"}), std::nullopt);
  // An empty argument before it does not hide it.
  EXPECT_EQ(optionLikeArgument({"echo", "{a}{b}"},
                               with({{"a", std::string()}, {"b", std::string("-n")}}), {}),
            "b");
  EXPECT_EQ(optionLikeArgument({"echo", "{a}{b}"},
                               with({{"a", std::string("x")}, {"b", std::string("-n")}}), {}),
            std::nullopt);
  // Numbers are passed as they are (a negative number is not refused).
  EXPECT_EQ(optionLikeArgument({"seq", "{n}"}, with({{"n", std::int64_t{-5}}}), {}), std::nullopt);
  // argv[0] is the author's.
  EXPECT_EQ(optionLikeArgument({"{p}"}, with({{"p", std::string("-x")}}), {}), std::nullopt);
}

}  // namespace
}  // namespace abx::plugins::commands
