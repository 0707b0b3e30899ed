// SecretSealer: how the agents plugin writes a secret value into its state
// file without writing it in clear. AES-256-GCM with the state key
// (ABX_AGENTS_STATE_KEY or the state_key_file setting), a fresh random
// 12-byte nonce per value, and associated data naming the record the value
// belongs to, so a sealed value copied into another record does not open.
// A sealed value is text: "abx-sealed:v1:" + base64(nonce | ciphertext | tag).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::plugins::agents {

/** What every sealed value starts with; the version names the cipher and layout. */
inline constexpr std::string_view kSealedPrefix = "abx-sealed:v1:";

/**
 * A state key as an operator writes it: 32 bytes as 64 hex digits or in
 * base64 (standard or URL-safe, padding optional), surrounding white space
 * ignored. The error names @p source and says what is expected; it never
 * repeats the text.
 */
sdk::Result<std::array<unsigned char, 32>> parseStateKey(std::string_view text,
                                                         std::string_view source);

class SecretSealer {
 public:
  explicit SecretSealer(const std::array<unsigned char, 32>& key) : key_(key) {}
  ~SecretSealer();
  SecretSealer(const SecretSealer&) = delete;
  SecretSealer& operator=(const SecretSealer&) = delete;

  /** @p plain sealed for the record @p binding names. Throws only when the
   *  system has no randomness or OpenSSL fails (never in practice). */
  std::string seal(std::string_view plain, std::string_view binding) const;
  /** The plain text, or nullopt: not a sealed value, another key, another
   *  binding, or altered bytes. */
  std::optional<std::string> open(std::string_view sealed, std::string_view binding) const;

 private:
  std::array<unsigned char, 32> key_;
};

/** True when @p text has the sealed value's prefix (whatever it then holds). */
inline bool looksSealed(std::string_view text) { return text.starts_with(kSealedPrefix); }

}  // namespace abx::plugins::agents
