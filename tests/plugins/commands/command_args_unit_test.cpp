// Coercion of request arguments (every type x accepted/rejected input),
// defaults, unknown and missing parameters, and value rendering.
#include <gtest/gtest.h>

#include "abx/sdk/json.h"
#include "command_args.h"

namespace abx::plugins::commands {
namespace {

using sdk::ArgType;
using sdk::CommandValue;
using sdk::JsonScalar;

struct Accept {
  ArgType type;
  JsonScalar in;
  CommandValue out;
};

class CommandsCoerceAccepts : public ::testing::TestWithParam<Accept> {};

TEST_P(CommandsCoerceAccepts, ToTypedValue) {
  const auto& p = GetParam();
  auto got = coerceArg("x", p.type, p.in);
  ASSERT_TRUE(got) << got.status().message();
  EXPECT_EQ(*got, p.out);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CommandsCoerceAccepts,
    ::testing::Values(
        // string: strings verbatim; numbers and booleans become their JSON text.
        Accept{ArgType::string, std::string("hi"), std::string("hi")},
        Accept{ArgType::string, std::string(""), std::string("")},
        Accept{ArgType::string, std::string(" a b; rm -rf / "), std::string(" a b; rm -rf / ")},
        Accept{ArgType::string, std::int64_t{42}, std::string("42")},
        Accept{ArgType::string, 2.5, std::string("2.5")},
        Accept{ArgType::string, 2.0, std::string("2.0")},
        Accept{ArgType::string, true, std::string("true")},
        Accept{ArgType::string, false, std::string("false")},
        // integer: JSON integers, integral numbers, strings of integers.
        Accept{ArgType::integer, std::int64_t{42}, std::int64_t{42}},
        Accept{ArgType::integer, std::int64_t{-7}, std::int64_t{-7}},
        Accept{ArgType::integer, 4.0, std::int64_t{4}},
        Accept{ArgType::integer, std::string("42"), std::int64_t{42}},
        Accept{ArgType::integer, std::string("-42"), std::int64_t{-42}},
        Accept{ArgType::integer, std::string("+3"), std::int64_t{3}},
        Accept{ArgType::integer, std::string(" 12 "), std::int64_t{12}},
        Accept{ArgType::integer, std::string("9223372036854775807"),
               std::int64_t{9223372036854775807}},
        // float: numbers and numeric strings.
        Accept{ArgType::floating, 2.5, 2.5}, Accept{ArgType::floating, std::int64_t{3}, 3.0},
        Accept{ArgType::floating, std::string("2.5"), 2.5},
        Accept{ArgType::floating, std::string("-1e3"), -1000.0},
        Accept{ArgType::floating, std::string("7"), 7.0},
        Accept{ArgType::floating, std::string(" .5 "), 0.5},
        // boolean: true/false and the _parse_boolean words, any case.
        Accept{ArgType::boolean, true, true}, Accept{ArgType::boolean, false, false},
        Accept{ArgType::boolean, std::string("true"), true},
        Accept{ArgType::boolean, std::string("TRUE"), true},
        Accept{ArgType::boolean, std::string("Yes"), true},
        Accept{ArgType::boolean, std::string("1"), true},
        Accept{ArgType::boolean, std::string("false"), false},
        Accept{ArgType::boolean, std::string("No"), false},
        Accept{ArgType::boolean, std::string("0"), false},
        Accept{ArgType::boolean, std::int64_t{1}, true},
        Accept{ArgType::boolean, std::int64_t{0}, false}));

struct Reject {
  ArgType type;
  JsonScalar in;
  std::string message;
};

class CommandsCoerceRejects : public ::testing::TestWithParam<Reject> {};

TEST_P(CommandsCoerceRejects, WithValueError) {
  const auto& p = GetParam();
  auto got = coerceArg("x", p.type, p.in);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.status().type(), "ValueError");
  EXPECT_EQ(got.status().message(), p.message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, CommandsCoerceRejects,
    ::testing::Values(
        Reject{ArgType::string, JsonScalar{}, "Parameter 'x' must be a string, got null"},
        Reject{ArgType::integer, 4.5, "Parameter 'x' must be an integer, got 4.5"},
        Reject{ArgType::integer, std::string("4.5"),
               "Parameter 'x' must be an integer, got \"4.5\""},
        Reject{ArgType::integer, std::string("abc"),
               "Parameter 'x' must be an integer, got \"abc\""},
        Reject{ArgType::integer, std::string(""), "Parameter 'x' must be an integer, got \"\""},
        Reject{ArgType::integer, std::string("12abc"),
               "Parameter 'x' must be an integer, got \"12abc\""},
        Reject{ArgType::integer, std::string("99999999999999999999"),
               "Parameter 'x' must be an integer, got \"99999999999999999999\""},
        Reject{ArgType::integer, 1e30, "Parameter 'x' must be an integer, got 1e+30"},
        Reject{ArgType::integer, true, "Parameter 'x' must be an integer, got true"},
        Reject{ArgType::floating, std::string("abc"), "Parameter 'x' must be a float, got \"abc\""},
        Reject{ArgType::floating, std::string("nan"), "Parameter 'x' must be a float, got \"nan\""},
        Reject{ArgType::floating, std::string("inf"), "Parameter 'x' must be a float, got \"inf\""},
        Reject{ArgType::floating, std::string("1.5x"),
               "Parameter 'x' must be a float, got \"1.5x\""},
        Reject{ArgType::floating, false, "Parameter 'x' must be a float, got false"},
        Reject{ArgType::boolean, std::string("maybe"),
               "Parameter 'x' must be a boolean, got \"maybe\""},
        Reject{ArgType::boolean, std::string(""), "Parameter 'x' must be a boolean, got \"\""},
        Reject{ArgType::boolean, std::int64_t{2}, "Parameter 'x' must be a boolean, got 2"},
        Reject{ArgType::boolean, 1.0, "Parameter 'x' must be a boolean, got 1.0"},
        Reject{ArgType::boolean, JsonScalar{}, "Parameter 'x' must be a boolean, got null"}));

sdk::CommandSpec sample() {
  sdk::CommandSpec spec;
  spec.name = "greet";
  spec.args = {
      {"name", ArgType::string, false, CommandValue(std::string("World")), "who"},
      {"count", ArgType::integer, true, std::nullopt, ""},
      {"loud", ArgType::boolean, false, std::nullopt, ""},
  };
  return spec;
}

sdk::Json body(std::string_view text) {
  auto parsed = sdk::Json::parse(text);
  EXPECT_TRUE(parsed) << parsed.status().message();
  return parsed ? *parsed : sdk::Json();
}

TEST(CommandsBindArgs, FillsDefaultsAndLeavesOptionalWithoutDefaultAbsent) {
  auto args = bindArgs(sample(), body(R"({"count": "3"})"));
  ASSERT_TRUE(args) << args.status().message();
  EXPECT_EQ(args->at("name"), CommandValue(std::string("World")));
  EXPECT_EQ(args->at("count"), CommandValue(std::int64_t{3}));
  EXPECT_FALSE(args->contains("loud"));
}

TEST(CommandsBindArgs, NullCountsAsAbsent) {
  auto args = bindArgs(sample(), body(R"({"count": 1, "name": null})"));
  ASSERT_TRUE(args);
  EXPECT_EQ(args->at("name"), CommandValue(std::string("World")));
}

TEST(CommandsBindArgs, CoercesEveryGivenArgument) {
  auto args = bindArgs(sample(), body(R"({"count": 2, "name": "Qoder", "loud": "yes"})"));
  ASSERT_TRUE(args);
  EXPECT_EQ(args->at("name"), CommandValue(std::string("Qoder")));
  EXPECT_EQ(args->at("loud"), CommandValue(true));
}

TEST(CommandsBindArgs, MissingRequiredParameter) {
  auto args = bindArgs(sample(), body(R"({"name": "x"})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().type(), "ValueError");
  EXPECT_EQ(args.status().message(), "Missing required parameter 'count' for command 'greet'");
}

TEST(CommandsBindArgs, RequiredParameterGivenAsNullIsMissing) {
  auto args = bindArgs(sample(), body(R"({"count": null})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().message(), "Missing required parameter 'count' for command 'greet'");
}

TEST(CommandsBindArgs, UnknownParameterIsReportedBeforeMissingOnes) {
  auto args = bindArgs(sample(), body(R"({"cuont": 1})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().type(), "ValueError");
  EXPECT_EQ(args.status().message(),
            "Unknown parameter 'cuont' for command 'greet'; accepted: name, count, loud");
}

TEST(CommandsBindArgs, SeveralUnknownParametersAreListedSorted) {
  auto args = bindArgs(sample(), body(R"({"zz": 1, "aa": 2, "count": 1})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().message(),
            "Unknown parameters 'aa', 'zz' for command 'greet'; accepted: name, count, loud");
}

TEST(CommandsBindArgs, UnknownParameterOfACommandWithoutArgs) {
  sdk::CommandSpec spec;
  spec.name = "noargs";
  auto args = bindArgs(spec, body(R"({"a": 1})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().message(),
            "Unknown parameter 'a' for command 'noargs'; accepted: (none)");
}

TEST(CommandsBindArgs, CoercionFailureNamesTheParameter) {
  auto args = bindArgs(sample(), body(R"({"count": 4.5})"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().message(), "Parameter 'count' must be an integer, got 4.5");
}

TEST(CommandsBindArgs, ArraysAndObjectsAreRejected) {
  auto a = bindArgs(sample(), body(R"({"count": [1]})"));
  ASSERT_FALSE(a);
  EXPECT_EQ(a.status().message(), "Parameter 'count' must be an integer, got an array");
  auto o = bindArgs(sample(), body(R"({"count": 1, "name": {"a": 1}})"));
  ASSERT_FALSE(o);
  EXPECT_EQ(o.status().message(), "Parameter 'name' must be a string, got an object");
}

TEST(CommandsBindArgs, NonObjectBodyIsRejected) {
  auto args = bindArgs(sample(), body("[1, 2]"));
  ASSERT_FALSE(args);
  EXPECT_EQ(args.status().message(), "Request body must be a JSON object of arguments");
}

TEST(CommandsBindArgs, EmptyBodyUsesDefaults) {
  sdk::CommandSpec spec = sample();
  spec.args[1].required = false;
  auto args = bindArgs(spec, sdk::Json());
  ASSERT_TRUE(args);
  EXPECT_EQ(args->size(), 1u);
  EXPECT_EQ(args->at("name"), CommandValue(std::string("World")));
}

TEST(CommandsValueRendering, TextAndJson) {
  EXPECT_EQ(valueText(CommandValue(std::string("a \"b\""))), "a \"b\"");
  EXPECT_EQ(valueJson(CommandValue(std::string("a \"b\""))), "\"a \\\"b\\\"\"");
  EXPECT_EQ(valueText(CommandValue(std::int64_t{-5})), "-5");
  EXPECT_EQ(valueJson(CommandValue(std::int64_t{-5})), "-5");
  EXPECT_EQ(valueText(CommandValue(0.1)), "0.1");
  EXPECT_EQ(valueJson(CommandValue(3.0)), "3.0");
  EXPECT_EQ(valueJson(CommandValue(true)), "true");
  EXPECT_EQ(valueText(CommandValue(false)), "false");
}

}  // namespace
}  // namespace abx::plugins::commands
