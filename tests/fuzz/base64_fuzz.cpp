// libFuzzer target for the files plugin's base64 coder
// (plugins/files/base64_codec.*, base64_stream.*). Built and run by
// tests/fuzz/run.sh base64 with -fsanitize=fuzzer,address,undefined.
//
// The first input byte picks a mode, the next four pick where the payload is
// cut into pieces (each piece is copied into a heap block of its own size,
// so ASan sees any read past a piece); the rest is the payload:
//   even  payload = bytes: the streaming encoder, fed in pieces, gives the
//         reference text (POCO's encoder); every kernel's block encoder agrees;
//         the streaming decoder, fed that text in other pieces (with line
//         breaks added when the mode byte says so), gives the bytes back
//   odd   payload = text: the streaming decoder fed in pieces accepts exactly
//         what a one-character-at-a-time model of docs/files.md accepts, with
//         the same error message, and then yields the bytes POCO's decoder
//         yields; every kernel's block decoder agrees with the scalar one
// Any disagreement aborts with the input's description.
#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/MemoryStream.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base64_codec.h"
#include "base64_stream.h"
#include "fuzz_pieces.h"

namespace {

using abx::fuzz::pieces;

namespace b64 = abx::plugins::files::base64;
using abx::plugins::files::Base64StreamDecoder;
using abx::plugins::files::Base64StreamEncoder;

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "invariant violated: %s\n", what);
  std::abort();
}

/** Feeds one piece from a heap block of exactly its size. */
template <typename Fn>
auto withOwnBlock(std::string_view piece, Fn fn) {
  auto block = std::make_unique<char[]>(piece.size() ? piece.size() : 1);
  std::copy(piece.begin(), piece.end(), block.get());
  return fn(std::string_view(block.get(), piece.size()));
}

std::string pocoEncode(std::string_view bytes) {
  std::ostringstream out;
  Poco::Base64Encoder enc(out);
  enc.rdbuf()->setLineLength(0);
  enc.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  enc.close();
  return out.str();
}

std::string pocoDecode(std::string_view clean) {
  Poco::MemoryInputStream in(clean.data(), static_cast<std::streamsize>(clean.size()));
  Poco::Base64Decoder dec(in);
  std::string out(clean.size() / 4 * 3, '\0');
  dec.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(dec.gcount()));
  return out;
}

/** The documented rules, one character at a time: "" when valid, else the reason. */
std::string modelCheck(std::string_view text, std::string& clean) {
  int padding = 0;
  for (unsigned char c : text) {
    if (c == ' ' || (c >= '\t' && c <= '\r')) continue;
    bool symbol = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/';
    if (symbol) {
      if (padding) return "data after padding";
    } else if (c == '=') {
      if (!padding && clean.size() % 4 < 2) return "misplaced padding";
      if (++padding > 2) return "too much padding";
    } else {
      return "unexpected character";
    }
    clean += static_cast<char>(c);
  }
  return clean.size() % 4 ? "incorrect padding" : "";
}

void checkBlockKernels(std::string_view bytes, std::string_view text) {
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t whole = bytes.size() / 3 * 3;
  std::string want(whole / 3 * 4, '\0');
  b64::encoderOf(b64::Kernel::scalar)(in, whole, want.data());
  std::vector<unsigned char> want_bytes(text.size() / 4 * 3);
  std::size_t want_used = withOwnBlock(text, [&](std::string_view t) {
    return b64::decoderOf(b64::Kernel::scalar)(t.data(), t.size(), want_bytes.data());
  });
  for (auto k : {b64::Kernel::avx2}) {
    if (!b64::kernelAvailable(k)) continue;
    std::string got(want.size(), '\0');
    b64::encoderOf(k)(in, whole, got.data());
    if (got != want) violated("a kernel's encoding differs from the scalar one");
    std::vector<unsigned char> got_bytes(want_bytes.size());
    std::size_t used = withOwnBlock(text, [&](std::string_view t) {
      return b64::decoderOf(k)(t.data(), t.size(), got_bytes.data());
    });
    if (used != want_used) violated("a kernel stops decoding elsewhere than the scalar one");
    if (!std::equal(got_bytes.begin(), got_bytes.begin() + static_cast<long>(used / 4 * 3),
                    want_bytes.begin()))
      violated("a kernel decodes other bytes than the scalar one");
  }
}

void roundTrip(std::uint8_t mode, const std::uint8_t* cuts, std::string_view bytes) {
  Base64StreamEncoder enc;
  std::string text;
  for (auto piece : pieces(bytes, cuts))
    withOwnBlock(piece, [&](std::string_view p) { return enc.update(p, text), 0; });
  enc.finish(text);
  if (text != pocoEncode(bytes)) violated("streaming encoding differs from POCO's");
  checkBlockKernels(bytes, text);
  if (mode & 2) {  // line-wrapped, as a JSON client may send it
    std::string wrapped;
    for (std::size_t i = 0; i < text.size(); i += 1 + mode % 77)
      wrapped += text.substr(i, 1 + mode % 77) + "\n";
    text = wrapped;
  }
  Base64StreamDecoder dec;
  std::string back;
  const std::uint8_t other_cuts[4] = {cuts[3], cuts[1], cuts[0], cuts[2]};
  for (auto piece : pieces(text, other_cuts))
    if (!withOwnBlock(piece, [&](std::string_view p) { return bool(dec.update(p, back)); }))
      violated("the decoder refused the encoder's text");
  if (!dec.finish(back)) violated("the decoder refused the end of the encoder's text");
  if (back != bytes) violated("decode(encode(x)) != x");
}

void decodeArbitrary(const std::uint8_t* cuts, std::string_view text) {
  checkBlockKernels({}, text);
  std::string clean;
  std::string why = modelCheck(text, clean);
  Base64StreamDecoder dec;
  std::string out;
  abx::sdk::Status status;
  for (auto piece : pieces(text, cuts)) {
    status = withOwnBlock(piece, [&](std::string_view p) { return dec.update(p, out); });
    if (!status) break;
  }
  if (status) status = dec.finish(out);
  if (why.empty() != bool(status)) violated("the decoder and the model disagree on validity");
  if (!status) {
    if (status.message() != "Invalid base64 content: " + why) violated("another error message");
    return;
  }
  if (out != pocoDecode(clean)) violated("decoded bytes differ from POCO's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  std::string_view payload(reinterpret_cast<const char*>(data + 5), size - 5);
  if (data[0] & 1)
    decodeArbitrary(data + 1, payload);
  else
    roundTrip(data[0], data + 1, payload);
  return 0;
}
