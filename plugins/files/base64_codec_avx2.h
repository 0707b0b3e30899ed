// The AVX2 kernel of the base64 codec (x86-64 only): 24 bytes to 32
// characters and back per step, after Muła and Lemire, "Faster Base64
// Encoding and Decoding Using AVX2 Instructions" (ACM TWEB 12(3), 2018).
// Internal to base64_codec.cpp, which picks it at run time; same contract as
// base64::EncodeFn / DecodeFn there.
#pragma once

#include <cstddef>

namespace abx::plugins::files::base64::avx2 {

/** Compiled in (x86-64) and the CPU and OS run AVX2. */
bool supported();

#if defined(__x86_64__)
void encode(const unsigned char* in, std::size_t n, char* out);
std::size_t decode(const char* in, std::size_t n, unsigned char* out);
#endif

}  // namespace abx::plugins::files::base64::avx2
