// Unit: the "text" parser (plain stdout lines -> one streamed message).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "parser_test_support.h"

namespace abx::testing::parsers {
namespace {

using ::testing::ElementsAre;

TEST(TextParser, LinesStreamAsOneMessageJoinedByNewlines) {
  auto events = runParser("text", {"first line", "", "third"}, 0);
  EXPECT_THAT(kinds(events),
              ElementsAre("text_delta", "text_delta", "text_delta", "message", "result"));
  EXPECT_EQ(events[0].text, "first line");
  EXPECT_EQ(events[1].text, "\n");
  EXPECT_EQ(events[2].text, "\nthird");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(events[i].id, "msg_0");
  EXPECT_EQ(events[3].text, "first line\n\nthird");
  EXPECT_TRUE(events[4].ok);
  EXPECT_EQ(events[4].text, "first line\n\nthird");
}

TEST(TextParser, NonZeroExitIsAFailedResult) {
  auto events = runParser("text", {"partial"}, 3);
  ASSERT_THAT(kinds(events), ElementsAre("text_delta", "message", "result"));
  EXPECT_FALSE(events[2].ok);
  EXPECT_EQ(events[2].text, "partial");
}

TEST(TextParser, NoOutputGivesOnlyAResult) {
  auto events = runParser("text", {}, 0);
  ASSERT_THAT(kinds(events), ElementsAre("result"));
  EXPECT_TRUE(events[0].ok);
  EXPECT_EQ(events[0].text, "");
}

TEST(ParserFactory, KnowsTheThreeNamesOnly) {
  EXPECT_NE(plugins::adapters::makeParser("text"), nullptr);
  EXPECT_NE(plugins::adapters::makeParser("jsonl-codex"), nullptr);
  EXPECT_NE(plugins::adapters::makeParser("jsonl-claude"), nullptr);
  EXPECT_EQ(plugins::adapters::makeParser("jsonl-qwen"), nullptr);
  EXPECT_EQ(plugins::adapters::makeParser(""), nullptr);
  EXPECT_THAT(plugins::adapters::parserNames(), ElementsAre("text", "jsonl-codex", "jsonl-claude"));
}

}  // namespace
}  // namespace abx::testing::parsers
