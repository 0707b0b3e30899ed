// RedactionPatterns: an immutable, compiled set of things to redact — the
// spellings of each secret value (secret_spellings.h) plus the common token
// shapes — and the one hand-written scanner that both Redactor (whole texts)
// and StreamRedactor (chunks) use. No std::regex: every event of every turn
// passes through here.
//
// Token shapes (a shape must start at a word boundary: the byte before it is
// not [A-Za-z0-9]):
//   sk-<16+ of [A-Za-z0-9_-]>            OpenAI/Anthropic style keys
//   gh[pousr]_<20+ of [A-Za-z0-9]>      GitHub tokens
//   github_pat_<20+ of [A-Za-z0-9_]>     GitHub fine-grained tokens
//   Bearer <8+ of [A-Za-z0-9._~+/=-]>    case-insensitive scheme, 1–4 spaces
//   x-api-key: <6+ of the same>          case-insensitive; also "x-api-key":"…",
//                                        \"x-api-key\":\"…\" and x-api-key=…
// For Bearer and x-api-key the keyword and separator are kept and only the
// value becomes [REDACTED], so a log still says what was removed — unless a
// secret's spelling lies inside that label: then the whole match is replaced.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

inline constexpr std::string_view kRedacted = "[REDACTED]";
/** Shorter secret values are not redacted by default: they would hit ordinary words. */
inline constexpr std::size_t kMinSecretLength = 6;

/** The byte set that continues a token shape's value. */
enum class TokenAlphabet : std::uint8_t { sk_key, alnum, github_pat, http_token };

ABX_SDK_API bool inTokenAlphabet(TokenAlphabet alphabet, char c);

class ABX_SDK_API RedactionPatterns {
 public:
  /** Token shapes only. */
  RedactionPatterns();
  /** Token shapes plus every spelling of each value of @p secrets that has at
   *  least @p min_length bytes. */
  explicit RedactionPatterns(const std::vector<std::string>& secrets,
                             std::size_t min_length = kMinSecretLength);

  /** Result of one scan step; see scan(). */
  struct ScanResult {
    /** text[0, decided) was written to out; text[decided, end) may start a match. */
    std::size_t decided = 0;
    /**
     * The last match is a token whose value reached the end of the text: with
     * more data to come, further bytes of this alphabet still belong to it.
     */
    std::optional<TokenAlphabet> open_run;
  };

  /**
   * Appends @p text, redacted, to @p out. @p prev_byte is the byte before
   * @p text (-1: none, i.e. a word boundary). With @p at_end false the text may
   * continue: the scan stops at the first position where a match can not yet
   * be decided; with @p at_end true everything is decided.
   */
  ScanResult scan(std::string_view text, int prev_byte, bool at_end, std::string& out) const;

  /** The longest byte length a pattern needs to be decided; a stream holds back at most this − 1.
   */
  std::size_t longestPattern() const { return longest_; }
  /** The number of secret spellings (for tests and diagnostics). */
  std::size_t spellingCount() const { return spellings_.size(); }

 private:
  enum class Outcome { none, match, need_more };
  struct Match {
    Outcome outcome = Outcome::none;
    std::size_t length = 0; /**< bytes of text consumed */
    std::size_t keep = 0;   /**< leading bytes written verbatim before [REDACTED] */
    std::optional<TokenAlphabet> open_run;
  };

  void addSpelling(std::string spelling);
  Match matchAt(std::string_view text, std::size_t i, int prev_byte, bool at_end) const;
  Match matchSpellings(std::string_view text, std::size_t i, bool at_end) const;
  Match matchTokens(std::string_view text, std::size_t i, bool at_end) const;
  /** Whether a secret spelling lies wholly inside @p label. */
  bool spellsASecret(std::string_view label) const;

  static std::uint16_t bigram(char a, char b) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(a) << 8 |
                                      static_cast<unsigned char>(b));
  }

  std::vector<std::string> spellings_;
  /** First two bytes → spellings_ indexes, longest first. */
  std::unordered_map<std::uint16_t, std::vector<std::size_t>> by_bigram_;
  /** Every pattern's possible first two bytes: the fast path skips other positions. */
  std::bitset<65536> start_bigrams_;
  /** Every pattern's possible first byte (a stream's last byte may start a match). */
  std::bitset<256> start_bytes_;
  std::size_t longest_ = 0;
};

}  // namespace abx::sdk
