#include "secrets/redactor.h"

#include <algorithm>

namespace abx::plugins::agents {

Redactor::Redactor() : patterns_(std::make_shared<const RedactionPatterns>()) {}

Redactor::Redactor(const SecretBag& secrets) : Redactor() { addSecrets(secrets); }

void Redactor::addSecret(std::string_view value) {
  SecretBag one;
  one.add(std::string(value));
  addSecrets(one);
}

void Redactor::addSecrets(const SecretBag& secrets) {
  std::lock_guard lock(mutex_);
  bool changed = false;
  for (const auto& value : secrets.values()) {
    if (value.size() < kMinSecretLength) continue;
    if (std::find(secrets_.begin(), secrets_.end(), value) != secrets_.end()) continue;
    secrets_.push_back(value);
    changed = true;
  }
  // Compiling under the lock keeps two concurrent adds from losing one another's secret.
  if (changed) patterns_ = std::make_shared<const RedactionPatterns>(secrets_);
}

std::shared_ptr<const RedactionPatterns> Redactor::patterns() const {
  std::lock_guard lock(mutex_);
  return patterns_;
}

std::string Redactor::redact(std::string_view text) const {
  const auto snapshot = patterns();
  std::string out;
  out.reserve(text.size());
  snapshot->scan(text, -1, true, out);
  return out;
}

}  // namespace abx::plugins::agents
