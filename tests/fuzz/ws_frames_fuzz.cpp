// plugins_fuzz sub-target: the PTY WebSocket's framing (WsFrameReader,
// encodeFrame) and its JSON text frames (parseClientFrame, outputFrame).
//
// Input: a mode byte, four bytes that pick cuts, then the payload.
//   even mode: the payload is one frame's payload; the frame is encoded
//     with flags from the mode byte, masked as a client must (key from the
//     input) or left unmasked, followed by a second small frame, and fed to
//     the reader in pieces: the reader gives both frames back, unchanged,
//     and nothing stays buffered (encode -> decode round trip);
//   odd mode: the payload is raw bytes from a client, fed in pieces: the
//     reader never returns more bytes than it got, stops for good at
//     too_big, and every text frame goes through parseClientFrame: an input
//     frame's data written back by outputFrame parses as JSON again (the
//     same data when it is ASCII), a
//     resize is within 1..1000, a signal is one of the five.
#include <signal.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <variant>

#include "abx/sdk/json.h"
#include "fuzz_check.h"
#include "fuzz_pieces.h"
#include "ws_frame.h"
#include "ws_protocol.h"

namespace abx::fuzz {
namespace {

using namespace plugins::terminal;

constexpr std::size_t kMax = 4096;

std::string clientFrame(int flags, std::string_view payload, const std::uint8_t* key, bool mask) {
  std::string frame = encodeFrame(flags, payload);
  if (!mask) return frame;
  const std::size_t header = frame.size() - payload.size();
  frame[1] = static_cast<char>(frame[1] | 0x80);
  std::string out = frame.substr(0, header);
  out.append(reinterpret_cast<const char*>(key), 4);
  for (std::size_t i = 0; i < payload.size(); ++i)
    out += static_cast<char>(payload[i] ^ key[i & 3]);
  return out;
}

void roundTrip(std::uint8_t mode, const std::uint8_t* cuts, std::string_view payload) {
  const int flags = (mode & 0xF0) | ((mode >> 1) & 0x0F);
  const bool mask = (mode & 0x02) != 0;
  std::string bytes =
      clientFrame(flags, payload, cuts, mask) + clientFrame(kFin | kOpPing, "p", cuts, mask);
  WsFrameReader reader(kMax);
  int got = 0;
  for (auto piece : pieces(bytes, cuts)) {
    reader.append(piece.data(), piece.size());
    WsFrame frame;
    for (WsFrameReader::Status s; (s = reader.next(frame)) != WsFrameReader::Status::incomplete;) {
      check(s == WsFrameReader::Status::frame, "a frame within the limit is no too_big", payload);
      if (got++ == 0)
        check(frame.flags == (flags & 0xFF) && frame.payload == payload,
              "a frame comes back unchanged", payload);
      else
        check(frame.flags == (kFin | kOpPing) && frame.payload == "p", "the next frame follows",
              payload);
    }
  }
  check(got == 2 && reader.buffered() == 0, "both frames read, nothing left", payload);
}

void clientFrameRules(const std::string& text) {
  const auto parsed = parseClientFrame(text);
  if (!parsed) return;
  if (const auto* input = std::get_if<InputFrame>(&*parsed)) {
    const auto echoed = sdk::Json::parse(outputFrame(input->data));
    check(echoed && echoed->string("type").isOk() && *echoed->string("type") == "output",
          "an output frame parses", text);
    const bool ascii = std::all_of(input->data.begin(), input->data.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    check(!ascii || (echoed->string("data").isOk() && *echoed->string("data") == input->data),
          "an output frame carries its data", text);
  } else if (const auto* resize = std::get_if<ResizeFrame>(&*parsed)) {
    check(resize->cols >= kMinDimension && resize->cols <= kMaxDimension &&
              resize->rows >= kMinDimension && resize->rows <= kMaxDimension,
          "a resize is within bounds", text);
  } else {
    const int sig = std::get<SignalFrame>(*parsed).signal;
    check(sig == SIGINT || sig == SIGTERM || sig == SIGKILL || sig == SIGHUP || sig == SIGQUIT,
          "a signal is one of the five", text);
  }
}

void rawBytes(const std::uint8_t* cuts, std::string_view bytes) {
  WsFrameReader reader(kMax);
  std::size_t returned = 0;
  bool lost = false;
  for (auto piece : pieces(bytes, cuts)) {
    reader.append(piece.data(), piece.size());
    WsFrame frame;
    for (WsFrameReader::Status s;
         !lost && (s = reader.next(frame)) != WsFrameReader::Status::incomplete;) {
      if (s == WsFrameReader::Status::too_big) {
        lost = true;
        break;
      }
      returned += frame.payload.size() + 2;
      check(frame.payload.size() <= kMax, "a frame is within the limit", bytes);
      if ((frame.flags & kOpcodeMask) == kOpText) clientFrameRules(frame.payload);
    }
  }
  check(returned + (lost ? 0 : reader.buffered()) <= bytes.size(), "no more bytes out than in",
        bytes);
}

}  // namespace

void fuzzWsFrames(std::string_view data) {
  if (data.size() < 5) return;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::string_view payload = data.substr(5);
  if (bytes[0] % 2 == 0)
    roundTrip(bytes[0], bytes + 1, payload);
  else
    rawBytes(bytes + 1, payload);
  clientFrameRules(std::string(payload));
}

}  // namespace abx::fuzz
