// SecretEnvironment: the server's secrets that arrive as environment
// variables (ABX_SERVER_TOKEN, each policy token_env, variables a plugin
// claims). Taking one removes it from the process's own environment block —
// the bytes that /proc/<server>/environ shows are overwritten, then the name
// is unset — so no child and no same-user process can read it there. Tokens
// are kept as SHA-256 digests only; a plugin's claimed secret is kept as
// text, because the plugin must hand it to a child of its own.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "support/token_digest.h"

namespace abx::kernel {

class SecretEnvironment {
 public:
  /** The process's one instance (the environment is process-wide). */
  static SecretEnvironment& instance();

  /**
   * The SHA-256 of token variable @p name, wiping it from the environment
   * on first use; later calls (a policy reload) answer from memory. nullopt
   * when the variable is unset or empty.
   */
  std::optional<TokenDigest> takeTokenDigest(const std::string& name);
  /** The value of @p name, wiped from the environment on first use. */
  std::optional<std::string> takeSecret(const std::string& name);
  /** True for a name taken by either call (it must never reach a child). */
  bool taken(std::string_view name) const;

 private:
  /** Reads, removes and overwrites @p name; nullopt when unset. */
  static std::optional<std::string> wipe(const std::string& name);

  mutable std::mutex mutex_;
  std::map<std::string, std::optional<TokenDigest>, std::less<>> digests_;
  std::map<std::string, std::optional<std::string>, std::less<>> secrets_;
};

}  // namespace abx::kernel
