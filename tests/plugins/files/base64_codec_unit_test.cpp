// base64 block kernels: each kernel this CPU runs (scalar always, AVX2 where
// present) against an independent reference and against each other, on
// every length and every position of a character outside the alphabet,
// and the bounds of what they read and write.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base64_codec.h"
#include "plugins/files/random_bytes.h"

namespace abx::plugins::files::base64 {
namespace {

using abx::testing::randomBytes;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string referenceEncode(const std::string& in) {
  std::string out;
  for (std::size_t i = 0; i + 3 <= in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                 static_cast<unsigned char>(in[i + 1]) << 8 | static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  return out;
}

std::vector<Kernel> kernels() {
  std::vector<Kernel> out{Kernel::scalar};
  if (kernelAvailable(Kernel::avx2)) out.push_back(Kernel::avx2);
  return out;
}

const char* name(Kernel k) { return k == Kernel::avx2 ? "avx2" : "scalar"; }

/** Decodes with @p kernel into a buffer with guard bytes on both sides. */
std::string decodeGuarded(Kernel kernel, const std::string& text, std::size_t& used) {
  constexpr unsigned char kGuard = 0xA5;
  std::vector<unsigned char> buf(text.size() / 4 * 3 + 64, kGuard);
  used = decoderOf(kernel)(text.data(), text.size(), buf.data() + 32);
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(buf[i], kGuard) << "wrote before the output";
  for (std::size_t i = 32 + used / 4 * 3; i < buf.size(); ++i)
    EXPECT_EQ(buf[i], kGuard) << "wrote past the decoded bytes at " << i - 32;
  return std::string(buf.begin() + 32, buf.begin() + 32 + static_cast<long>(used / 4 * 3));
}

TEST(Base64Codec, TheActiveKernelIsTheFastestAvailable) {
  EXPECT_TRUE(kernelAvailable(Kernel::scalar));
  EXPECT_EQ(activeKernel(), kernelAvailable(Kernel::avx2) ? Kernel::avx2 : Kernel::scalar);
  EXPECT_EQ(encoderOf(Kernel::avx2) != nullptr, kernelAvailable(Kernel::avx2));
  EXPECT_EQ(decoderOf(Kernel::avx2) != nullptr, kernelAvailable(Kernel::avx2));
}

TEST(Base64Codec, EveryKernelEncodesEveryLengthLikeTheReference) {
  for (Kernel k : kernels()) {
    for (std::size_t n = 0; n <= 600; n += 3) {
      std::string data = randomBytes(n, static_cast<unsigned>(n));
      std::string out(n / 3 * 4 + 8, '#');
      encoderOf(k)(reinterpret_cast<const unsigned char*>(data.data()), n, out.data());
      ASSERT_EQ(out.substr(0, n / 3 * 4), referenceEncode(data)) << name(k) << " n=" << n;
      ASSERT_EQ(out.substr(n / 3 * 4), "########") << name(k) << " wrote past n=" << n;
    }
  }
}

TEST(Base64Codec, EveryKernelDecodesEveryLengthOfValidText) {
  for (Kernel k : kernels()) {
    for (std::size_t n = 0; n <= 600; n += 3) {
      std::string data = randomBytes(n, static_cast<unsigned>(n) + 7);
      std::string text = referenceEncode(data);
      std::size_t used = 0;
      ASSERT_EQ(decodeGuarded(k, text, used), data) << name(k) << " n=" << n;
      ASSERT_EQ(used, text.size()) << name(k);
    }
  }
}

TEST(Base64Codec, DecodingStopsBeforeTheGroupOfTheFirstForeignCharacter) {
  const std::string text = referenceEncode(randomBytes(150, 11));  // 200 characters
  const std::string foreign = std::string("= \n\t\r!-_.\"\\") + '\0' + '\x7f' + '\x80' + '\xff';
  for (Kernel k : kernels()) {
    for (char bad : foreign) {
      for (std::size_t pos = 0; pos < text.size(); ++pos) {
        std::string t = text;
        t[pos] = bad;
        std::size_t used = 0;
        std::string out = decodeGuarded(k, t, used);
        ASSERT_EQ(used, pos / 4 * 4) << name(k) << " byte " << int(bad) << " at " << pos;
        std::size_t ref_used = 0;
        ASSERT_EQ(out, decodeGuarded(Kernel::scalar, t, ref_used)) << name(k);
      }
    }
  }
}

TEST(Base64Codec, EveryByteValueIsClassifiedAlikeByEveryKernel) {
  for (Kernel k : kernels()) {
    for (int c = 0; c < 256; ++c) {
      bool alphabet = std::string_view(kAlphabet).find(static_cast<char>(c)) != std::string::npos;
      std::string t(64, 'A');
      t[37] = static_cast<char>(c);
      std::size_t used = 0;
      decodeGuarded(k, t, used);
      EXPECT_EQ(used, alphabet ? 64u : 36u) << name(k) << " byte " << c;
      unsigned char cls = classify(static_cast<unsigned char>(c));
      EXPECT_EQ(cls < 64, alphabet) << c;
      if (alphabet) {
        EXPECT_EQ(symbol(cls), static_cast<char>(c));
      }
    }
  }
  EXPECT_EQ(classify('='), kPad);
  for (char c : {' ', '\t', '\n', '\r', '\f', '\v'}) EXPECT_EQ(classify(c), kSpace) << int(c);
}

TEST(Base64Codec, DecodingReadsNoFurtherThanItIsTold) {
  // The characters after n are valid: a decoder that read them would say so.
  const std::string text = referenceEncode(randomBytes(300, 5));
  for (Kernel k : kernels()) {
    for (std::size_t n = 0; n <= text.size(); ++n) {
      std::vector<unsigned char> out(text.size());
      EXPECT_EQ(decoderOf(k)(text.data(), n, out.data()), n / 4 * 4) << name(k) << " n=" << n;
    }
  }
}

TEST(Base64Codec, EncodeTailPads) {
  const unsigned char one[] = {'A'}, two[] = {'A', 'B'}, ff[] = {0xff, 0xff};
  char out[4];
  encodeTail(one, 1, out);
  EXPECT_EQ(std::string(out, 4), "QQ==");
  encodeTail(two, 2, out);
  EXPECT_EQ(std::string(out, 4), "QUI=");
  encodeTail(ff, 2, out);
  EXPECT_EQ(std::string(out, 4), "//8=");
}

TEST(Base64Codec, KernelsAgreeOnLargeRandomInput) {
  std::string data = randomBytes(3u << 20, 99);
  std::string text = referenceEncode(data);
  for (Kernel k : kernels()) {
    std::string out(text.size(), '\0');
    encoderOf(k)(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
    ASSERT_EQ(out, text) << name(k);
    std::string back(data.size(), '\0');
    ASSERT_EQ(decoderOf(k)(text.data(), text.size(), reinterpret_cast<unsigned char*>(back.data())),
              text.size());
    ASSERT_EQ(back, data) << name(k);
  }
}

}  // namespace
}  // namespace abx::plugins::files::base64
