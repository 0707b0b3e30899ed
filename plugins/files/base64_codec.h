// The inner loops of the streaming base64 coder (RFC 4648 standard
// alphabet): whole 3-byte groups to text and whole 4-character groups of
// alphabet characters back to bytes, with no state and no allocation. The
// portable scalar implementation is the reference; an AVX2 implementation
// (x86-64 only) is chosen at run time when the CPU has AVX2 and must give
// exactly the same results.
#pragma once

#include <cstddef>

namespace abx::plugins::files::base64 {

/** The implementation behind encodeGroups/decodeGroups. */
enum class Kernel { scalar, avx2 };

/** Encodes @p n bytes (n % 3 == 0) into n / 3 * 4 characters at @p out. */
using EncodeFn = void (*)(const unsigned char* in, std::size_t n, char* out);

/**
 * Decodes the longest prefix of @p in (n characters) made of whole groups
 * of four alphabet characters ('=' and whitespace are not in the alphabet)
 * into used / 4 * 3 bytes at @p out, and returns used (a multiple of 4).
 * Stops before the first group holding any other character, and never
 * reads past in + n nor writes past out + used / 4 * 3.
 */
using DecodeFn = std::size_t (*)(const char* in, std::size_t n, unsigned char* out);

/** The fastest kernel this CPU runs (AVX2 when available), chosen once. */
Kernel activeKernel();
/** True when @p kernel is compiled in and this CPU can run it. */
bool kernelAvailable(Kernel kernel);
/** The functions of @p kernel; null when !kernelAvailable(kernel). */
EncodeFn encoderOf(Kernel kernel);
DecodeFn decoderOf(Kernel kernel);

/** The active kernel's encoder and decoder. */
void encodeGroups(const unsigned char* in, std::size_t n, char* out);
std::size_t decodeGroups(const char* in, std::size_t n, unsigned char* out);

/** Encodes the last 1 or 2 bytes as one padded group of 4 characters. */
void encodeTail(const unsigned char* in, std::size_t n, char* out);

/** The 6-bit value of an alphabet character, or a class for the rest. */
enum : unsigned char { kSpace = 64, kPad = 65, kInvalid = 255 };
unsigned char classify(unsigned char c);

/** The alphabet character of a 6-bit value. */
char symbol(unsigned value);

}  // namespace abx::plugins::files::base64
