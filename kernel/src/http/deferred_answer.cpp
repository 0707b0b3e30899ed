#include "http/deferred_answer.h"

namespace abx::kernel {

AnswerFeed::AnswerFeed(Renderer render, std::function<void()> on_hang_up)
    : render_(std::move(render)), on_hang_up_(std::move(on_hang_up)) {}

void AnswerFeed::attach(std::shared_ptr<sdk::SseWaker> waker) {
  std::lock_guard lock(mutex_);
  waker_ = waker;
}

void AnswerFeed::answer(sdk::Response response) {
  // Rendered on the caller's thread: the loop only copies bytes.
  std::string bytes = render_(response);
  std::shared_ptr<sdk::SseWaker> waker;
  {
    std::lock_guard lock(mutex_);
    if (answered_) return;
    answered_ = true;
    bytes_ = std::move(bytes);
    waker = waker_.lock();
  }
  if (waker) waker->wake();
}

bool AnswerFeed::open() const {
  std::lock_guard lock(mutex_);
  auto waker = waker_.lock();
  return !answered_ && waker && waker->open();
}

sdk::SseFeed::Pull AnswerFeed::pull(std::string& out, std::size_t) {
  std::lock_guard lock(mutex_);
  if (!bytes_) return Pull::wait;
  out += *bytes_;
  bytes_.reset();
  return Pull::end;
}

void AnswerFeed::closed() {
  std::function<void()> hang_up;
  {
    std::lock_guard lock(mutex_);
    // Ended before an answer was sent: the client went, or the server drains.
    if (!answered_ || bytes_) hang_up = std::move(on_hang_up_);
    answered_ = true;
  }
  if (hang_up) hang_up();
}

}  // namespace abx::kernel
