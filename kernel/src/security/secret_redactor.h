// SecretRedactor: the host's Redactor; every log line passes through it.
#pragma once

#include <shared_mutex>
#include <string>
#include <vector>

#include "abx/sdk/redactor.h"

namespace abx::kernel {

class SecretRedactor final : public sdk::Redactor {
 public:
  void addSecret(std::string_view value) override;
  std::string redact(std::string_view text) const override;

 private:
  mutable std::shared_mutex mutex_;
  std::vector<std::string> secrets_;
};

}  // namespace abx::kernel
