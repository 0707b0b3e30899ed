// FramesStream: an SseStream test double that takes encoded text (frames())
// as the kernel's stream does, and refuses everything once told to, like a
// stream whose client left.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>

#include "abx/sdk/http.h"

namespace abx::plugins::process {

/** Takes encoded text as the kernel's stream would; refuses once told to. */
class FramesStream final : public sdk::SseStream {
 public:
  bool begin() override { return true; }
  bool event(std::string_view, std::string_view) override { return false; }
  bool comment(std::string_view) override {
    ++comments;
    return accept;
  }
  bool open() const override { return accept; }
  bool frames(std::string_view encoded) override {
    if (!accept) return false;
    std::lock_guard lock(mutex);
    text += encoded;
    return true;
  }
  std::string received() {
    std::lock_guard lock(mutex);
    return text;
  }
  std::atomic<bool> accept{true};
  std::atomic<int> comments{0};
  std::mutex mutex;
  std::string text;
};

}  // namespace abx::plugins::process
