// TextRedaction: the runtime's view of secret redaction. Everything the
// runtime keeps or publishes (item text, tool output, deltas, stderr tails,
// error messages, log lines) passes through one of these first. Deltas go
// through a DeltaRedaction so a secret split across two deltas is still
// caught.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace abx::plugins::agents {

/** A stateful redactor over one stream of deltas. THREAD: one user. */
class DeltaRedaction {
 public:
  virtual ~DeltaRedaction() = default;
  /** @return what is safe to emit now (may hold back a possible secret prefix). */
  virtual std::string push(std::string_view delta) = 0;
  /** @return whatever was held back; the stream ends. */
  virtual std::string flush() = 0;
};

/** THREAD: const methods are safe concurrently. */
class TextRedaction {
 public:
  virtual ~TextRedaction() = default;
  virtual std::string redact(std::string_view text) const = 0;
  virtual std::unique_ptr<DeltaRedaction> newStream() const = 0;
};

}  // namespace abx::plugins::agents
