// sdk::sha1 and sdk::sha256 (see abx/sdk/digest.h), straight from FIPS
// 180-4: one pass over 64-byte blocks, the message padded with 0x80, zeros
// and its bit length (big-endian).
#include "abx/sdk/digest.h"

#include <bit>
#include <cstdint>
#include <string>

namespace abx::sdk {
namespace {

using Block = const unsigned char*;

std::uint32_t bigEndian32(Block p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

/** @p bytes padded to whole 64-byte blocks, as both digests take it. */
std::string padded(std::string_view bytes) {
  std::string m(bytes);
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int shift = 56; shift >= 0; shift -= 8) m += static_cast<char>(bits >> shift & 0xff);
  return m;
}

template <std::size_t N>
std::array<unsigned char, N * 4> bigEndianBytes(const std::array<std::uint32_t, N>& words) {
  std::array<unsigned char, N * 4> out{};
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t b = 0; b < 4; ++b)
      out[i * 4 + b] = static_cast<unsigned char>(words[i] >> (24 - 8 * b));
  return out;
}

void sha1Block(std::array<std::uint32_t, 5>& h, Block block) {
  std::array<std::uint32_t, 80> w{};
  for (int t = 0; t < 16; ++t) w[t] = bigEndian32(block + 4 * t);
  for (int t = 16; t < 80; ++t) w[t] = std::rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  auto [a, b, c, d, e] = h;
  for (int t = 0; t < 80; ++t) {
    const std::uint32_t f = t < 20   ? (b & c) | (~b & d)
                            : t < 40 ? b ^ c ^ d
                            : t < 60 ? (b & c) | (b & d) | (c & d)
                                     : b ^ c ^ d;
    const std::uint32_t k = t < 20   ? 0x5a827999
                            : t < 40 ? 0x6ed9eba1
                            : t < 60 ? 0x8f1bbcdc
                                     : 0xca62c1d6;
    const std::uint32_t next = std::rotl(a, 5) + f + e + k + w[t];
    e = d;
    d = c;
    c = std::rotl(b, 30);
    b = a;
    a = next;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

constexpr std::array<std::uint32_t, 64> kSha256Constants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

void sha256Block(std::array<std::uint32_t, 8>& h, Block block) {
  std::array<std::uint32_t, 64> w{};
  for (int t = 0; t < 16; ++t) w[t] = bigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    const std::uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const std::uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  auto v = h;  // a b c d e f g h
  for (int t = 0; t < 64; ++t) {
    const std::uint32_t s1 = std::rotr(v[4], 6) ^ std::rotr(v[4], 11) ^ std::rotr(v[4], 25);
    const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
    const std::uint32_t t1 = v[7] + s1 + ch + kSha256Constants[t] + w[t];
    const std::uint32_t s0 = std::rotr(v[0], 2) ^ std::rotr(v[0], 13) ^ std::rotr(v[0], 22);
    const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
    for (int i = 7; i > 0; --i) v[i] = v[i - 1];
    v[4] += t1;
    v[0] = t1 + s0 + maj;
  }
  for (int i = 0; i < 8; ++i) h[i] += v[i];
}

}  // namespace

std::array<unsigned char, 20> sha1(std::string_view bytes) {
  std::array<std::uint32_t, 5> h = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  const std::string m = padded(bytes);
  for (std::size_t at = 0; at < m.size(); at += 64)
    sha1Block(h, reinterpret_cast<Block>(m.data() + at));
  return bigEndianBytes(h);
}

std::array<unsigned char, 32> sha256(std::string_view bytes) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const std::string m = padded(bytes);
  for (std::size_t at = 0; at < m.size(); at += 64)
    sha256Block(h, reinterpret_cast<Block>(m.data() + at));
  return bigEndianBytes(h);
}

}  // namespace abx::sdk
