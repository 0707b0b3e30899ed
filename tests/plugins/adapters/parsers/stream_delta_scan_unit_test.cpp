// Unit: the stream-json delta fast path agrees with the full JSON parse on
// every real transcript line, decodes escapes, and declines what it cannot
// read exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "json_reads.h"
#include "parser_test_support.h"
#include "stream_delta_scan.h"

namespace abx::testing::parsers {
namespace {

using plugins::adapters::scanStreamDelta;
namespace json = plugins::adapters::json;

TEST(StreamDeltaScan, AgreesWithTheFullParseOnEveryTranscriptLine) {
  int matched = 0;
  for (std::string cli : {"claude", "qwen"}) {
    for (std::string run :
         {"turn1", "turn2-resume", "turn3-resume-notool", "tool-fail", "auth-error"}) {
      for (const auto& line : transcriptLines(cli, run)) {
        auto fast = scanStreamDelta(line);
        auto delta = json::obj(json::obj(json::parseObject(line), "event"), "delta");
        const std::string type = json::str(delta, "type");
        const bool is_delta = type == "text_delta" || type == "thinking_delta";
        ASSERT_EQ(fast.has_value(), is_delta) << line;
        if (!fast) continue;
        ++matched;
        EXPECT_EQ(fast->thinking, type == "thinking_delta");
        EXPECT_EQ(fast->text, json::str(delta, fast->thinking ? "thinking" : "text"));
      }
    }
  }
  EXPECT_GT(matched, 40);
}

TEST(StreamDeltaScan, DecodesEscapesAndSurrogatePairs) {
  auto d = scanStreamDelta(
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"a\"b\\c\n\u00e9\ud83d\ude00\/"}},"session_id":"s"})");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->thinking);
  EXPECT_EQ(d->text, "a\"b\\c\n\xC3\xA9\xF0\x9F\x98\x80/");
}

TEST(StreamDeltaScan, DeclinesWhatItCannotReadExactly) {
  const std::string head =
      R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":)";
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"text_delta","text":"abc)"));  // truncated
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"text_delta","text":"a)" + "\x01" + R"("}}})"));
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"text_delta","text":"\ud83d"}}})"));
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"text_delta","text":"\x"}}})"));
  EXPECT_FALSE(scanStreamDelta(head + R"({"text":"a","type":"text_delta"}}})"));  // key order
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"text_delta","text":"a","extra":1}}})"));
  EXPECT_FALSE(scanStreamDelta(head + R"({"type":"input_json_delta","partial_json":"{"}}})"));
  EXPECT_TRUE(scanStreamDelta(head + R"({"type":"text_delta","text":"a"}}})"));
}

// Found by the agent_parsers fuzz target: the members around "event" were not
// read, so a line the JSON parser refuses could still stream as a delta.
TEST(StreamDeltaScan, DeclinesLinesThatAreNotJsonAroundTheDelta) {
  const std::string event =
      R"("event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}})";
  const std::string head = R"({"type":"stream_event",)";
  EXPECT_TRUE(scanStreamDelta(head + R"("uuid":"u","n":-12,"p":null,)" + event + R"(,"s":"x"})"));
  EXPECT_FALSE(scanStreamDelta(head + event + R"(,"uuid":"3dbf-":"msg","type":"m"})"));
  EXPECT_FALSE(scanStreamDelta(head + R"(garbage,)" + event + "}"));
  EXPECT_FALSE(scanStreamDelta(head + R"("type":"other",)" + event + "}"));  // repeated key
  EXPECT_FALSE(scanStreamDelta(head + event + R"(,"event":null})"));
  EXPECT_FALSE(scanStreamDelta(head + R"("n":01,)" + event + "}"));
  EXPECT_FALSE(scanStreamDelta(head + event + ",\"s\":\"b\xFF\"}"));  // not UTF-8
  EXPECT_FALSE(scanStreamDelta(head + event.substr(0, event.size() - 4) + "\xC0\xAF\"}}}"));
  EXPECT_FALSE(scanStreamDelta(head + R"("event":{"type":"content_block_delta","index":01,)"
                                      R"("delta":{"type":"text_delta","text":"a"}}})"));
}

TEST(StreamDeltaScan, ParserGivesTheSameEventsWithAndWithoutTheFastPath) {
  // Pretty-printed lines (spaces after ':') never take the fast path.
  std::vector<std::string> compact = transcriptLines("claude", "turn1"), spaced;
  for (auto line : compact) {
    for (std::size_t p = 0; (p = line.find("\":", p)) != std::string::npos; p += 3)
      line.replace(p, 2, "\": ");
    spaced.push_back(line);
  }
  auto a = runParser("jsonl-claude", compact, 0);
  auto b = runParser("jsonl-claude", spaced, 0);
  ASSERT_EQ(kinds(a), kinds(b));
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id) << i;
    EXPECT_EQ(a[i].text, b[i].text) << i;
  }
}

}  // namespace
}  // namespace abx::testing::parsers
