// SecretRedactor: the one Redactor implementation — the kernel's (every log
// line, every plugin's HostContext::redactor()) and the agents' (event
// texts, tool output, stderr tails, persisted items). It removes secret
// values in every spelling (secret_spellings.h) and the common token shapes
// (redaction_patterns.h) from any text before it leaves the process.
//
// Concurrency: the compiled patterns are an immutable snapshot behind a
// shared_ptr. redact() copies the pointer under a mutex and scans without
// it; addSecret() builds a new snapshot and swaps it in. Adding a secret
// while other threads redact is therefore safe; it is not cheap (it
// recompiles), so give many secrets at once with addSecrets().
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/redaction_patterns.h"
#include "abx/sdk/redactor.h"

namespace abx::sdk {

/** THREAD: safe. */
class ABX_SDK_API SecretRedactor : public Redactor {
 public:
  /** Token shapes only, no secret values yet; values shorter than
   *  @p min_length bytes are never added. */
  explicit SecretRedactor(std::size_t min_length = kMinSecretLength);
  SecretRedactor(const SecretRedactor&) = delete;
  SecretRedactor& operator=(const SecretRedactor&) = delete;
  ~SecretRedactor() = default;

  void addSecret(std::string_view value) override;
  /** Adds every value of @p values with one recompilation. */
  void addSecrets(const std::vector<std::string>& values);

  /** @return @p text with every match replaced by "[REDACTED]"; unchanged texts cost one copy. */
  std::string redact(std::string_view text) const override;

  /** The current snapshot (a stream redactor reads it on every push). */
  std::shared_ptr<const RedactionPatterns> patterns() const;

 private:
  const std::size_t min_length_;
  mutable std::mutex mutex_;
  std::vector<std::string> secrets_;  // guarded by mutex_; the source of the next snapshot
  std::shared_ptr<const RedactionPatterns> patterns_;
};

}  // namespace abx::sdk
