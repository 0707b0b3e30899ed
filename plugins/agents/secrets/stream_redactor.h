// StreamRedactor: redaction for output that arrives in chunks split at
// arbitrary byte boundaries (a CLI's stdout, a tool's output deltas). A
// secret split across two chunks is still caught: push() emits only text
// whose redaction is settled and holds back the rest — at most
// RedactionPatterns::longestPattern() − 1 bytes. The output of any split is
// the same as SecretRedactor::redact() of the whole text.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/redaction_patterns.h"
#include "abx/sdk/secret_redactor.h"

namespace abx::plugins::agents {

/** THREAD: one stream, one thread at a time. */
class StreamRedactor {
 public:
  /**
   * Follows @p redactor: each push() uses its current snapshot, so secrets
   * added mid-stream apply from the next push on. @p redactor must outlive this.
   */
  explicit StreamRedactor(const sdk::SecretRedactor& redactor);
  /** A fixed snapshot. */
  explicit StreamRedactor(std::shared_ptr<const sdk::RedactionPatterns> patterns);

  /** @return the redacted text that is safe to emit now (possibly empty). */
  std::string push(std::string_view chunk);
  /** End of stream: @return everything still held back, redacted. The stream can then restart. */
  std::string flush();

  /** Bytes currently held back. */
  std::size_t heldBytes() const { return held_.size(); }

 private:
  std::shared_ptr<const sdk::RedactionPatterns> current() const;

  const sdk::SecretRedactor* redactor_ = nullptr;
  std::shared_ptr<const sdk::RedactionPatterns> fixed_;
  std::string held_;
  /** The last byte consumed (-1: none yet), for the token shapes' word-boundary rule. */
  int prev_byte_ = -1;
  /** Inside a redacted token whose value may continue: bytes of this alphabet are dropped. */
  std::optional<sdk::TokenAlphabet> swallowing_;
};

}  // namespace abx::plugins::agents
