// Redactor: removes secret values (every spelling, see secret_spellings.h)
// and common token shapes (redaction_patterns.h) from any text before it
// leaves the process — event texts, tool output, stderr tails, error
// messages, persisted items (agents spec §9.3, §9.12).
//
// Concurrency: the compiled patterns are an immutable snapshot behind a
// shared_ptr. redact() copies the pointer under a mutex and scans without
// it; addSecret() builds a new snapshot and swaps it in. Adding a secret
// while other threads redact is therefore safe; it is not cheap (it
// recompiles), so per-turn secrets are best given all at once: either
// addSecrets(bag) on a per-turn Redactor built from the agent's bag plus
// the turn's secrets, or one addSecrets() call on a shared one.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "abx/sdk/redactor.h"
#include "secrets/redaction_patterns.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {

/** THREAD: safe. */
class Redactor final : public sdk::Redactor {
 public:
  /** Token shapes only, no secret values yet. */
  Redactor();
  explicit Redactor(const SecretBag& secrets);
  Redactor(const Redactor&) = delete;
  Redactor& operator=(const Redactor&) = delete;
  ~Redactor() = default;

  /** Values shorter than kMinSecretLength (6) bytes are ignored (sdk::Redactor says 4; §9.3 says
   * 6). */
  void addSecret(std::string_view value) override;
  /** Adds every value of @p secrets with one recompilation. */
  void addSecrets(const SecretBag& secrets);

  /** @return @p text with every match replaced by "[REDACTED]"; unchanged texts cost one copy. */
  std::string redact(std::string_view text) const override;

  /** The current snapshot (StreamRedactor reads it on every push). */
  std::shared_ptr<const RedactionPatterns> patterns() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> secrets_;  // guarded by mutex_; the source of the next snapshot
  std::shared_ptr<const RedactionPatterns> patterns_;
};

}  // namespace abx::plugins::agents
