// Compiled for any x86-64 (the functions carry target("avx2") themselves),
// so the plugin still loads on a CPU without AVX2; base64_codec.cpp only
// calls in here after supported(). Whatever is left after the 24/32-wide
// steps (and a group holding a character outside the alphabet) goes to the
// scalar kernel, the reference these functions must agree with.
#include "base64_codec_avx2.h"

#include "base64_codec.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace abx::plugins::files::base64::avx2 {

#if defined(__x86_64__)

namespace {

#define ABX_AVX2 __attribute__((target("avx2")))

/** 32 six-bit values (one per byte) to their alphabet characters. */
ABX_AVX2 inline __m256i toAscii(__m256i values) {
  // Each range of the alphabet is the value plus a constant; the constant is
  // looked up by a small index: 13 for 0..25, 0 for 26..51, 1..12 above.
  const __m256i offsets =
      _mm256_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                       '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0,
                       'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                       '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
  __m256i index = _mm256_subs_epu8(values, _mm256_set1_epi8(51));
  __m256i upper = _mm256_cmpgt_epi8(_mm256_set1_epi8(26), values);
  index = _mm256_or_si256(index, _mm256_and_si256(upper, _mm256_set1_epi8(13)));
  return _mm256_add_epi8(values, _mm256_shuffle_epi8(offsets, index));
}

/** 12 input bytes at the start of each 128-bit lane to 32 six-bit values. */
ABX_AVX2 inline __m256i splitSixBits(__m256i in) {
  // Per group b0 b1 b2, the 32-bit word b1 b0 b2 b1; then the multiplies
  // shift each 6-bit field into its own byte.
  in = _mm256_shuffle_epi8(in, _mm256_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,
                                                1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
  __m256i a = _mm256_and_si256(in, _mm256_set1_epi32(0x0fc0fc00));
  a = _mm256_mulhi_epu16(a, _mm256_set1_epi32(0x04000040));
  __m256i b = _mm256_and_si256(in, _mm256_set1_epi32(0x003f03f0));
  b = _mm256_mullo_epi16(b, _mm256_set1_epi32(0x01000010));
  return _mm256_or_si256(a, b);
}

/**
 * 32 characters to their six-bit values; false when any of them is outside
 * the alphabet. Low and high nibble each select a set of flags; only bytes
 * of the alphabet have disjoint sets.
 */
ABX_AVX2 inline bool fromAscii(__m256i& str) {
  const __m256i lut_lo =
      _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B,
                       0x1B, 0x1B, 0x1A, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                       0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
  const __m256i lut_hi =
      _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10,
                       0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10,
                       0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
  const __m256i lut_roll =
      _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4, -65,
                       -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i mask_2f = _mm256_set1_epi8(0x2f);
  __m256i hi_nibbles = _mm256_and_si256(_mm256_srli_epi32(str, 4), mask_2f);
  __m256i lo_nibbles = _mm256_and_si256(str, mask_2f);
  __m256i hi = _mm256_shuffle_epi8(lut_hi, hi_nibbles);
  __m256i lo = _mm256_shuffle_epi8(lut_lo, lo_nibbles);
  if (!_mm256_testz_si256(lo, hi)) return false;
  // '/' shares its high nibble with '+': it takes the delta at index 1.
  __m256i eq_2f = _mm256_cmpeq_epi8(str, mask_2f);
  __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(eq_2f, hi_nibbles));
  str = _mm256_add_epi8(str, roll);
  return true;
}

/** 32 six-bit values to 24 bytes, packed at the start of the register. */
ABX_AVX2 inline __m256i joinSixBits(__m256i values) {
  __m256i pairs = _mm256_maddubs_epi16(values, _mm256_set1_epi32(0x01400140));
  __m256i words = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00011000));
  words = _mm256_shuffle_epi8(
      words, _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5,
                              4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
  return _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, -1, -1));
}

}  // namespace

bool supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

ABX_AVX2 void encode(const unsigned char* in, std::size_t n, char* out) {
  std::size_t i = 0;
  // Each step reads 28 bytes (two 16-byte loads, 12 apart) and uses 24.
  for (; i + 28 <= n; i += 24, out += 32) {
    __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 12));
    __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), toAscii(splitSixBits(both)));
  }
  encoderOf(Kernel::scalar)(in + i, n - i, out);
}

ABX_AVX2 std::size_t decode(const char* in, std::size_t n, unsigned char* out) {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32, out += 24) {
    __m256i str = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    if (!fromAscii(str)) break;
    __m256i bytes = joinSixBits(str);
    // Exactly 24 bytes: 16 from the low lane, 8 from the high one.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(bytes));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 16), _mm256_extracti128_si256(bytes, 1));
  }
  return i + decoderOf(Kernel::scalar)(in + i, n - i, out);
}

#undef ABX_AVX2

#else

bool supported() { return false; }

#endif

}  // namespace abx::plugins::files::base64::avx2
