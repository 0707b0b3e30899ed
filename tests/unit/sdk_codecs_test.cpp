// The SDK's text codecs and digests (abx/sdk/text_codecs.h, abx/sdk/digest.h)
// against the published test vectors (RFC 4648 §10, FIPS 180-4 examples),
// POCO's coder for random inputs, and their strictness on bad input.
#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "abx/sdk/digest.h"
#include "abx/sdk/text_codecs.h"

namespace {

using abx::sdk::base64Decode;
using abx::sdk::base64Encode;

template <std::size_t N>
std::string hex(const std::array<unsigned char, N>& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string pocoBase64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

TEST(SdkBase64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64Encode(plain), encoded);
    EXPECT_EQ(base64Decode(encoded), std::optional<std::string>(plain)) << encoded;
  }
}

TEST(SdkBase64, UrlSafeAndUnpaddedAreRead) {
  EXPECT_EQ(base64Decode("Zm8"), std::optional<std::string>("fo"));
  EXPECT_EQ(base64Decode("Zg"), std::optional<std::string>("f"));
  EXPECT_EQ(base64Decode("-_-_"), base64Decode("+/+/"));
  EXPECT_EQ(base64Decode("-_-_")->size(), 3u);
}

TEST(SdkBase64, AnythingElseIsRefused) {
  for (const char* bad : {"Zm9v!", "Zm 9v", "Z", "Zm9vY",
                          "Zm=", "Zm9v=", "Zm9v====", "Zh==", "Zm9=", "=Zm9", "Zm\n9v"})
    EXPECT_FALSE(base64Decode(bad).has_value()) << bad;
}

TEST(SdkBase64, AgreesWithPocoOnRandomBytesAndRoundTrips) {
  std::mt19937 random(7);
  for (int n = 0; n < 300; ++n) {
    std::string bytes(static_cast<std::size_t>(n), '\0');
    for (auto& c : bytes) c = static_cast<char>(random());
    const std::string encoded = base64Encode(bytes);
    EXPECT_EQ(encoded, pocoBase64(bytes)) << n;
    EXPECT_EQ(base64Decode(encoded), std::optional<std::string>(bytes)) << n;
  }
}

TEST(SdkPercent, EncodesAllButUnreservedAndDecodesStrictly) {
  EXPECT_EQ(abx::sdk::percentEncode("a b/c~d_e.f-g\xe2\x82\xac"), "a%20b%2Fc~d_e.f-g%E2%82%AC");
  std::string out;
  EXPECT_TRUE(abx::sdk::percentDecode("a%20b%2fc+d", out));
  EXPECT_EQ(out, "a b/c+d");
  for (const char* bad : {"%", "%4", "%zz", "a%g1"})
    EXPECT_FALSE(abx::sdk::percentDecode(bad, out));
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(abx::sdk::decodeQuery("a+b=%2B&&c&d=1=2&a+b=x"),
            std::optional<Pairs>(Pairs{{"a b", "+"}, {"c", ""}, {"d", "1=2"}, {"a b", "x"}}));
  EXPECT_EQ(abx::sdk::decodeQuery(""), std::optional<Pairs>(Pairs{}));
  EXPECT_FALSE(abx::sdk::decodeQuery("a=%4").has_value());
}

TEST(SdkDigest, Sha256Fips180Examples) {
  EXPECT_EQ(hex(abx::sdk::sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(abx::sdk::sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(abx::sdk::sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(abx::sdk::sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(SdkDigest, Sha1Fips180Examples) {
  EXPECT_EQ(hex(abx::sdk::sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(hex(abx::sdk::sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex(abx::sdk::sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  // 55 and 56 bytes: the padding's length field does / does not fit the block.
  EXPECT_EQ(hex(abx::sdk::sha1(std::string(55, 'a'))), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(hex(abx::sdk::sha1(std::string(56, 'a'))), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
}

}  // namespace
