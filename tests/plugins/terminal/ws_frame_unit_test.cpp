// The bridge thread's WebSocket framing: client frames parsed from bytes as
// they trickle in (masked or not, every length encoding), the 1 MiB limit
// seen from the header alone, and server frames encoded the way RFC 6455
// lays them out.
#include <gtest/gtest.h>

#include <string>

#include "ws_frame.h"

namespace abx::plugins::terminal {
namespace {

/** A client frame as a browser sends it: masked with @p key. */
std::string masked(int flags, const std::string& payload,
                   const std::string& key = "\x11\x22\x33\x44") {
  std::string frame = encodeFrame(flags, payload);
  const std::size_t header = frame.size() - payload.size();
  frame[1] = static_cast<char>(frame[1] | 0x80);
  std::string out = frame.substr(0, header) + key;
  for (std::size_t i = 0; i < payload.size(); ++i)
    out.push_back(static_cast<char>(payload[i] ^ key[i & 3]));
  return out;
}

TEST(WsFrame, EncodesTheThreeLengthForms) {
  EXPECT_EQ(encodeFrame(0x81, "hi"), std::string("\x81\x02hi", 4));
  const std::string mid(300, 'a');
  const std::string m = encodeFrame(0x81, mid);
  ASSERT_EQ(m.size(), 4 + mid.size());
  EXPECT_EQ(static_cast<unsigned char>(m[1]), 126);
  EXPECT_EQ((static_cast<unsigned char>(m[2]) << 8) | static_cast<unsigned char>(m[3]), 300);
  const std::string big(70000, 'b');
  const std::string b = encodeFrame(0x82, big);
  ASSERT_EQ(b.size(), 10 + big.size());
  EXPECT_EQ(static_cast<unsigned char>(b[1]), 127);
  EXPECT_EQ(static_cast<unsigned char>(b[7]), 0x01);  // 70000 = 0x011170
  EXPECT_EQ(static_cast<unsigned char>(b[8]), 0x11);
  EXPECT_EQ(static_cast<unsigned char>(b[9]), 0x70);
}

TEST(WsFrame, ClosePayloadIsCodeThenReason) {
  EXPECT_EQ(closePayload(1009, "Message too big"), std::string("\x03\xF1Message too big"));
}

TEST(WsFrame, ParsesMaskedFramesByteByByte) {
  WsFrameReader reader(1 << 20);
  const std::string payload(1000, 'x');
  const std::string bytes = masked(0x81, "hello") + masked(0x01, payload) + masked(0x80, "!");
  WsFrame frame;
  std::vector<WsFrame> got;
  for (char c : bytes) {
    reader.append(&c, 1);
    while (reader.next(frame) == WsFrameReader::Status::frame) got.push_back(frame);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].flags, 0x81);
  EXPECT_EQ(got[0].payload, "hello");
  EXPECT_EQ(got[1].flags, 0x01);  // a first fragment: no FIN
  EXPECT_EQ(got[1].payload, payload);
  EXPECT_EQ(got[2].flags, 0x80);
  EXPECT_EQ(got[2].payload, "!");
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(WsFrame, UnmaskedAndEmptyFramesParseToo) {
  WsFrameReader reader(1 << 20);
  const std::string bytes = encodeFrame(0x89, "") + encodeFrame(0x88, closePayload(1000, ""));
  reader.append(bytes.data(), bytes.size());
  WsFrame frame;
  ASSERT_EQ(reader.next(frame), WsFrameReader::Status::frame);
  EXPECT_EQ(frame.flags, 0x89);
  EXPECT_TRUE(frame.payload.empty());
  ASSERT_EQ(reader.next(frame), WsFrameReader::Status::frame);
  EXPECT_EQ(frame.payload, std::string("\x03\xE8", 2));
  EXPECT_EQ(reader.next(frame), WsFrameReader::Status::incomplete);
}

TEST(WsFrame, APayloadOverTheLimitIsTooBigFromItsHeader) {
  WsFrameReader reader(1 << 20);
  const std::string at_limit = masked(0x81, std::string(1 << 20, 'y'));
  reader.append(at_limit.data(), at_limit.size());
  WsFrame frame;
  ASSERT_EQ(reader.next(frame), WsFrameReader::Status::frame);
  EXPECT_EQ(frame.payload.size(), 1u << 20);
  // Only the header of an oversized frame: no need to buffer its payload.
  const std::string over = masked(0x81, std::string((1 << 20) + 1, 'z')).substr(0, 14);
  reader.append(over.data(), over.size());
  EXPECT_EQ(reader.next(frame), WsFrameReader::Status::too_big);
  // A 64-bit length no one could send in full.
  WsFrameReader huge(1 << 20);
  const std::string header("\x81\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", 10);
  huge.append(header.data(), header.size());
  EXPECT_EQ(huge.next(frame), WsFrameReader::Status::too_big);
}

}  // namespace
}  // namespace abx::plugins::terminal
