#include "environment/secret_environment.h"

#include <cstdlib>
#include <cstring>

#include "support/token_digest.h"

extern char** environ;

namespace abx::kernel {

SecretEnvironment& SecretEnvironment::instance() {
  static SecretEnvironment secrets;
  return secrets;
}

std::optional<std::string> SecretEnvironment::wipe(const std::string& name) {
  char* entry = nullptr;
  for (char** e = environ; e && *e; ++e) {
    if (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=') {
      entry = *e;
      break;
    }
  }
  if (!entry) return std::nullopt;
  std::string value(entry + name.size() + 1);
  // unsetenv drops the pointer from environ but leaves the string where it
  // was — for variables the process started with, in the block the kernel
  // shows as /proc/<pid>/environ. Unset first (it needs the name), then
  // overwrite the whole "NAME=value".
  std::size_t length = std::strlen(entry);
  ::unsetenv(name.c_str());
  std::memset(entry, 0, length);
  return value;
}

std::optional<TokenDigest> SecretEnvironment::takeTokenDigest(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (auto it = digests_.find(name); it != digests_.end()) return it->second;
  std::optional<TokenDigest> digest;
  if (auto value = wipe(name); value && !value->empty()) {
    digest = sha256Digest(*value);
    std::fill(value->begin(), value->end(), '\0');
  }
  digests_.emplace(name, digest);
  return digest;
}

std::optional<std::string> SecretEnvironment::takeSecret(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (auto it = secrets_.find(name); it != secrets_.end()) return it->second;
  auto value = wipe(name);
  secrets_.emplace(name, value);
  return value;
}

bool SecretEnvironment::taken(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return digests_.count(name) > 0 || secrets_.count(name) > 0;
}

}  // namespace abx::kernel
