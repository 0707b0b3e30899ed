#include "security/secret_redactor.h"

#include <algorithm>
#include <mutex>

namespace abx::kernel {

void SecretRedactor::addSecret(std::string_view value) {
  // Very short values would redact ordinary words and say little anyway.
  if (value.size() < 4) return;
  std::unique_lock lock(mutex_);
  if (std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) return;
  secrets_.emplace_back(value);
  // Longest first, so a secret containing another is replaced whole.
  std::sort(secrets_.begin(), secrets_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string SecretRedactor::redact(std::string_view text) const {
  std::string out(text);
  std::shared_lock lock(mutex_);
  for (const auto& secret : secrets_) {
    std::size_t pos = 0;
    while ((pos = out.find(secret, pos)) != std::string::npos) {
      out.replace(pos, secret.size(), "[REDACTED]");
      pos += 10;
    }
  }
  return out;
}

}  // namespace abx::kernel
