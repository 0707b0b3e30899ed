// SseWriter: the kernel's SseStream on a connection's socket while its
// handler runs on a worker (chunked, one blocking write per event or
// batch), until the handler detaches it to the event loop; and SseHub,
// which keeps such streams alive with `: ping` every 15 s and closes every
// stream when the server drains.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "abx/sdk/http.h"
#include "abx/sdk/metrics.h"

namespace abx::kernel {

class SseHub;

class SseWriter final : public sdk::SseStream {
 public:
  /** What a handler hands to the event loop. */
  struct Handoff {
    std::string unsent_head;  // the response head if not sent yet
    std::shared_ptr<sdk::SseFeed> feed;
    bool chunked = true;  // false: the feed gives a whole answer's bytes
  };
  /** Hands the connection to the event loop; null when it cannot leave its worker. */
  using Detacher = std::function<std::shared_ptr<sdk::SseWaker>(Handoff)>;
  /** Renders a deferred answer (AnswerFeed::Renderer). */
  using Renderer = std::function<std::string(const sdk::Response&)>;

  /** Writes to @p fd; @p head is the response's status line and headers. */
  SseWriter(int fd, std::string head, SseHub& hub, Detacher detacher = {}, Renderer render = {});
  ~SseWriter();

  bool begin() override;
  bool event(std::string_view name, std::string_view data) override;
  bool events(const std::vector<Event>& batch) override;
  bool comment(std::string_view text) override;
  std::shared_ptr<sdk::SseWaker> detach(std::shared_ptr<sdk::SseFeed> feed) override;
  std::shared_ptr<sdk::DeferredAnswer> defer(std::function<void()> on_hang_up) override;
  bool frames(std::string_view encoded) override;
  bool header(std::string_view name, std::string_view value) override;
  bool open() const override { return !closed_.load(std::memory_order_acquire); }

  bool begun() const;
  /** The event loop owns the connection now: the exchange must not touch it. */
  bool detached() const;
  /** Ends the chunked body (after the producer returned); false if it could not. */
  bool finish();
  /** Called by the hub: a ping if idle for @p idle, or nothing. */
  void pingIfIdle(std::chrono::steady_clock::duration idle);
  void close() { closed_.store(true, std::memory_order_release); }

 private:
  bool beginLocked();
  bool writeLocked(std::string_view frame);

  int fd_;
  std::string head_;
  SseHub& hub_;
  Detacher detacher_;
  Renderer render_;
  mutable std::mutex mutex_;
  bool begun_ = false;
  bool detached_ = false;
  std::atomic<bool> closed_{false};
  std::chrono::steady_clock::time_point last_write_;
};

class SseHub {
 public:
  explicit SseHub(std::chrono::milliseconds ping_interval = std::chrono::seconds(15));
  ~SseHub();
  /** Counts the streams on workers in @p open (null: nowhere). Before the first stream. */
  void setGauge(sdk::GaugeCell* open) { open_ = open; }
  void add(SseWriter* writer);
  void remove(SseWriter* writer);
  /** Ends every open stream and every stream opened from now on. */
  void closeAll();
  bool closing() const { return closing_.load(); }
  std::chrono::milliseconds pingInterval() const { return ping_interval_; }

 private:
  void run();

  std::chrono::milliseconds ping_interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::set<SseWriter*> writers_;
  sdk::GaugeCell* open_ = nullptr;
  std::atomic<bool> closing_{false};
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace abx::kernel
