// AnswerFeed: the kernel's DeferredAnswer. A handler that waits for
// something (a turn to end) defers its answer; the connection waits on the
// event loop, and the answer, rendered to bytes when it is given, is what
// the loop's stream sends — unframed, then the connection closes.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "abx/sdk/http.h"

namespace abx::kernel {

class AnswerFeed final : public sdk::SseFeed, public sdk::DeferredAnswer {
 public:
  /** Renders a Response as the bytes of a whole HTTP answer. */
  using Renderer = std::function<std::string(const sdk::Response&)>;

  AnswerFeed(Renderer render, std::function<void()> on_hang_up);

  /** The loop's stream this answer is sent on. */
  void attach(std::shared_ptr<sdk::SseWaker> waker);

  void answer(sdk::Response response) override;
  bool open() const override;
  Pull pull(std::string& out, std::size_t budget) override;
  void closed() override;

 private:
  const Renderer render_;
  std::function<void()> on_hang_up_;
  mutable std::mutex mutex_;
  std::weak_ptr<sdk::SseWaker> waker_;
  std::optional<std::string> bytes_;
  bool answered_ = false;
};

}  // namespace abx::kernel
