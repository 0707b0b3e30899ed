// StreamRedactor: for every split position of a text holding a secret (raw
// and each encoding) or a token shape, the streamed output equals the
// whole-text redaction, and the secret never appears in it.
#include <gtest/gtest.h>

#include "abx/sdk/secret_redactor.h"
#include "abx/sdk/secret_spellings.h"
#include "secrets/secret_bag.h"
#include "secrets/stream_redactor.h"

namespace abx::plugins::agents {
namespace {

// The agents build one per turn from the agent's secret bag.
class Redactor : public sdk::SecretRedactor {
 public:
  Redactor() = default;
  explicit Redactor(const SecretBag& bag) { addSecrets(bag.values()); }
};
using sdk::encodeUriComponent;
using sdk::jsonEscape;

constexpr const char* kSecret = "s3cr&t/v\"al ue";

std::string streamed(const Redactor& r, std::string_view text, std::vector<std::size_t> cuts) {
  StreamRedactor stream(r);
  std::string out;
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    out += stream.push(text.substr(from, cut - from));
    EXPECT_LT(stream.heldBytes(), r.patterns()->longestPattern());
    from = cut;
  }
  out += stream.push(text.substr(from));
  out += stream.flush();
  return out;
}

std::vector<std::string> textsToSplit() {
  const std::string secret = kSecret;
  std::vector<std::string> texts;
  for (const auto& spelling : {secret, encodeUriComponent(secret), jsonEscape(secret),
                               jsonEscape(secret, {.escape_slash = true}), "Bearer " + secret})
    texts.push_back("before " + spelling + " after");
  texts.push_back("key=sk-proj-ABCDEFGHIJ0123456789xyz;");
  texts.push_back("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload\nnext");
  texts.push_back(R"({"x-api-key":"abcdef123456"})");
  texts.push_back("ghp_abcdefghij0123456789ABCD github_pat_11ABCDEFG0_abcdefghijklmnop");
  texts.push_back("ends with a token sk-proj-ABCDEFGHIJ0123456789");
  texts.push_back(secret);
  return texts;
}

TEST(StreamRedactor, EverySplitPositionMatchesWholeTextRedaction) {
  SecretBag bag;
  bag.add(kSecret);
  Redactor r(bag);
  for (const auto& text : textsToSplit()) {
    const std::string expected = r.redact(text);
    ASSERT_NE(expected, text) << "test text must contain something to redact: " << text;
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
      const std::string out = streamed(r, text, {cut});
      EXPECT_EQ(out, expected) << "text '" << text << "' split at " << cut;
      EXPECT_EQ(out.find(kSecret), std::string::npos);
    }
  }
}

TEST(StreamRedactor, EveryPairOfSplitPositions) {
  SecretBag bag;
  bag.add(kSecret);
  Redactor r(bag);
  const std::string text = "a " + jsonEscape(kSecret) + " b sk-ABCDEFGHIJKLMNOPQRST c";
  const std::string expected = r.redact(text);
  for (std::size_t a = 0; a <= text.size(); ++a)
    for (std::size_t b = a; b <= text.size(); ++b)
      ASSERT_EQ(streamed(r, text, {a, b}), expected) << "cuts " << a << ", " << b;
}

TEST(StreamRedactor, ALabelHoldingASecretIsReplacedWholeAtEverySplit) {
  SecretBag bag;
  bag.add("earer ");
  Redactor r(bag);
  const std::string text = "Authorization: Bearer abc.defgh\nx";
  ASSERT_EQ(r.redact(text), "Authorization: [REDACTED]\nx");
  for (std::size_t a = 0; a <= text.size(); ++a)
    for (std::size_t b = a; b <= text.size(); ++b)
      ASSERT_EQ(streamed(r, text, {a, b}), "Authorization: [REDACTED]\nx") << a << ", " << b;
}

TEST(StreamRedactor, ByteByByte) {
  SecretBag bag;
  bag.add(kSecret);
  Redactor r(bag);
  for (const auto& text : textsToSplit()) {
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < text.size(); ++i) cuts.push_back(i);
    EXPECT_EQ(streamed(r, text, cuts), r.redact(text)) << text;
  }
}

TEST(StreamRedactor, EmitsPlainTextAtOnce) {
  Redactor r;
  StreamRedactor stream(r);
  EXPECT_EQ(stream.push("plain text without candidates."), "plain text without candidates.");
  EXPECT_EQ(stream.heldBytes(), 0u);
}

TEST(StreamRedactor, HoldsBackAPossibleSecretPrefix) {
  SecretBag bag;
  bag.add("abcdefghijkl");
  Redactor r(bag);
  StreamRedactor stream(r);
  EXPECT_EQ(stream.push("x abcdef"), "x ");
  EXPECT_EQ(stream.heldBytes(), 6u);
  EXPECT_EQ(stream.push("ghijkl y"), "[REDACTED] y");
  EXPECT_EQ(stream.flush(), "");
}

TEST(StreamRedactor, FlushReleasesAnIncompletePrefixUnchanged) {
  SecretBag bag;
  bag.add("abcdefghijkl");
  Redactor r(bag);
  StreamRedactor stream(r);
  EXPECT_EQ(stream.push("abcdef"), "");
  EXPECT_EQ(stream.flush(), "abcdef");
}

TEST(StreamRedactor, ALongTokenIsSwallowedAcrossManyChunks) {
  Redactor r;
  StreamRedactor stream(r);
  std::string out = stream.push("k=sk-ABCDEFGHIJKLMNOPQRST");
  for (int i = 0; i < 100; ++i) out += stream.push("MOREKEYBYTES");
  EXPECT_LE(stream.heldBytes(), 0u) << "an open token run is not held back";
  out += stream.push(" tail");
  out += stream.flush();
  EXPECT_EQ(out, "k=[REDACTED] tail");
}

TEST(StreamRedactor, SecretsAddedMidStreamApplyFromTheNextPush) {
  Redactor r;
  StreamRedactor stream(r);
  EXPECT_EQ(stream.push("late-secret-1 "), "late-secret-1 ");
  r.addSecret("late-secret-1");
  EXPECT_EQ(stream.push("late-secret-1 "), "[REDACTED] ");
}

}  // namespace
}  // namespace abx::plugins::agents
