#include "abx/sdk/secret_redactor.h"

#include <algorithm>

namespace abx::sdk {

SecretRedactor::SecretRedactor(std::size_t min_length)
    : min_length_(min_length), patterns_(std::make_shared<const RedactionPatterns>()) {}

void SecretRedactor::addSecret(std::string_view value) { addSecrets({std::string(value)}); }

void SecretRedactor::addSecrets(const std::vector<std::string>& values) {
  std::lock_guard lock(mutex_);
  bool changed = false;
  for (const auto& value : values) {
    if (value.size() < min_length_) continue;
    if (std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) continue;
    secrets_.push_back(value);
    changed = true;
  }
  // Compiling under the lock keeps two concurrent adds from losing one another's secret.
  if (changed) patterns_ = std::make_shared<const RedactionPatterns>(secrets_, min_length_);
}

std::shared_ptr<const RedactionPatterns> SecretRedactor::patterns() const {
  std::lock_guard lock(mutex_);
  return patterns_;
}

std::string SecretRedactor::redact(std::string_view text) const {
  const auto snapshot = patterns();
  std::string out;
  out.reserve(text.size());
  snapshot->scan(text, -1, true, out);
  return out;
}

}  // namespace abx::sdk
