// The scalar kernel and the run-time choice. Encoding looks up 12 bits at a
// time (two characters per lookup in a 4096-entry table); decoding looks up
// each character in one of four tables that already hold its bits at their
// place in the 3 output bytes, so a group is four loads and three ORs, and
// one test of the OR finds any character outside the alphabet.
#include "base64_codec.h"

#include <array>
#include <cstdint>

#include "base64_codec_avx2.h"

namespace abx::plugins::files::base64 {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<unsigned char, 256> classTable() {
  std::array<unsigned char, 256> t{};
  for (auto& v : t) v = kInvalid;
  for (unsigned i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
  for (unsigned char c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[c] = kSpace;
  t['='] = kPad;
  return t;
}
constexpr auto kClass = classTable();

// Two characters for every 12-bit value.
constexpr std::array<char, 8192> pairTable() {
  std::array<char, 8192> t{};
  for (unsigned v = 0; v < 4096; ++v) {
    t[2 * v] = kAlphabet[v >> 6];
    t[2 * v + 1] = kAlphabet[v & 63];
  }
  return t;
}
constexpr auto kPairs = pairTable();

// Decoded bits of a character at position 0..3 of a group, as the 24-bit
// value b0 << 16 | b1 << 8 | b2. A character outside the alphabet sets bit 24
// and up, which no valid lookup does.
constexpr std::uint32_t kBad = 0xff000000u;
constexpr std::array<std::uint32_t, 256> bitsTable(unsigned position) {
  std::array<std::uint32_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    unsigned v = kClass[c];
    t[c] = v < 64 ? static_cast<std::uint32_t>(v) << (18 - 6 * position) : kBad;
  }
  return t;
}
constexpr auto kBits0 = bitsTable(0);
constexpr auto kBits1 = bitsTable(1);
constexpr auto kBits2 = bitsTable(2);
constexpr auto kBits3 = bitsTable(3);

inline std::uint32_t groupBits(const unsigned char* s) {
  return kBits0[s[0]] | kBits1[s[1]] | kBits2[s[2]] | kBits3[s[3]];
}

inline void putBytes(std::uint32_t v, unsigned char* out) {
  out[0] = static_cast<unsigned char>(v >> 16);
  out[1] = static_cast<unsigned char>(v >> 8);
  out[2] = static_cast<unsigned char>(v);
}

inline void putPairs(std::uint32_t v, char* out) {
  const char* hi = &kPairs[2 * (v >> 12)];
  const char* lo = &kPairs[2 * (v & 0xfff)];
  out[0] = hi[0];
  out[1] = hi[1];
  out[2] = lo[0];
  out[3] = lo[1];
}

void encodeScalar(const unsigned char* in, std::size_t n, char* out) {
  for (std::size_t i = 0; i + 3 <= n; i += 3, out += 4)
    putPairs(static_cast<std::uint32_t>(in[i]) << 16 | static_cast<std::uint32_t>(in[i + 1]) << 8 |
                 in[i + 2],
             out);
}

std::size_t decodeScalar(const char* in, std::size_t n, unsigned char* out) {
  const auto* s = reinterpret_cast<const unsigned char*>(in);
  std::size_t i = 0;
  // Two groups per round: one branch for eight characters.
  for (; i + 8 <= n; i += 8, out += 6) {
    std::uint32_t a = groupBits(s + i);
    std::uint32_t b = groupBits(s + i + 4);
    if ((a | b) & kBad) break;
    putBytes(a, out);
    putBytes(b, out + 3);
  }
  for (; i + 4 <= n; i += 4, out += 3) {
    std::uint32_t a = groupBits(s + i);
    if (a & kBad) break;
    putBytes(a, out);
  }
  return i;
}

struct Active {
  Kernel kernel = kernelAvailable(Kernel::avx2) ? Kernel::avx2 : Kernel::scalar;
  EncodeFn encode = encoderOf(kernel);
  DecodeFn decode = decoderOf(kernel);
};

const Active& active() {
  static const Active chosen;
  return chosen;
}

}  // namespace

bool kernelAvailable(Kernel kernel) {
  if (kernel == Kernel::scalar) return true;
  static const bool avx2 = avx2::supported();
  return avx2;
}

Kernel activeKernel() { return active().kernel; }

EncodeFn encoderOf(Kernel kernel) {
  if (kernel == Kernel::scalar) return encodeScalar;
#if defined(__x86_64__)
  if (kernelAvailable(kernel)) return avx2::encode;
#endif
  return nullptr;
}

DecodeFn decoderOf(Kernel kernel) {
  if (kernel == Kernel::scalar) return decodeScalar;
#if defined(__x86_64__)
  if (kernelAvailable(kernel)) return avx2::decode;
#endif
  return nullptr;
}

void encodeGroups(const unsigned char* in, std::size_t n, char* out) {
  active().encode(in, n, out);
}

std::size_t decodeGroups(const char* in, std::size_t n, unsigned char* out) {
  return active().decode(in, n, out);
}

void encodeTail(const unsigned char* in, std::size_t n, char* out) {
  std::uint32_t v = static_cast<std::uint32_t>(in[0]) << 16;
  if (n > 1) v |= static_cast<std::uint32_t>(in[1]) << 8;
  out[0] = kAlphabet[v >> 18];
  out[1] = kAlphabet[(v >> 12) & 63];
  out[2] = n > 1 ? kAlphabet[(v >> 6) & 63] : '=';
  out[3] = '=';
}

unsigned char classify(unsigned char c) { return kClass[c]; }

char symbol(unsigned value) { return kAlphabet[value & 63]; }

}  // namespace abx::plugins::files::base64
