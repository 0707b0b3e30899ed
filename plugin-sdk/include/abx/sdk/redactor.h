// Redactor: removes registered secret values from any text before it leaves
// the process (events, logs, errors, persisted items).
#pragma once

#include <string>
#include <string_view>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** THREAD: safe. */
class ABX_SDK_API Redactor {
 public:
  /** Registers a secret value; values shorter than 4 bytes are ignored. */
  virtual void addSecret(std::string_view value) = 0;
  /** @return @p text with every registered secret replaced by "[REDACTED]". */
  virtual std::string redact(std::string_view text) const = 0;

 protected:
  ~Redactor();
};

}  // namespace abx::sdk
