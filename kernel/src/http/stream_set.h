// StreamSet: the streams (and deferred answers) handlers detached to the
// stream loop (StreamLoop) — adopted from the workers, pumped when their
// producer wakes them or their socket can take more, pinged while idle,
// ended when the client hangs up or the server drains. Its connections
// stay counted against the caps until they end.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "abx/sdk/metrics.h"
#include "http/connection.h"
#include "http/loop_stream.h"
#include "http/sse_writer.h"

namespace abx::kernel {

class StreamSet final : public StreamScheduler {
 public:
  /**
   * @p epoll_fd: the loop's; @p wake rouses the loop (any thread);
   * @p release ends a connection and its share of the caps; @p open_streams
   * (may be null) counts the streams the loop holds.
   */
  StreamSet(int epoll_fd, std::function<void()> wake,
            std::function<void(const ConnectionPtr&)> release,
            sdk::GaugeCell* open_streams = nullptr);

  /** On a worker, inside a stream handler: @p c moves to the loop. Null once closed. */
  std::shared_ptr<sdk::SseWaker> adopt(const ConnectionPtr& c, SseWriter::Handoff handoff,
                                       std::shared_ptr<void> hold);
  void schedule(std::shared_ptr<LoopStream> stream) override;
  /** From now on adopt() refuses (drain, stop). THREAD: any. */
  void refuseNew();

  // The loop thread's.
  /** Watches newly adopted streams and pumps every scheduled one. */
  void pumpScheduled();
  /** Handles epoll's @p what for @p fd; false when @p fd is not a stream's. */
  bool onEvent(int fd, std::uint32_t what);
  /** `: ping` on every stream silent for @p interval. */
  void pingIdle(std::chrono::steady_clock::time_point now, std::chrono::milliseconds interval);
  /**
   * Ends, with a reset, every stream whose client took no byte for @p limit
   * while more waited: what it was sent is dropped, not kept for it.
   * @return how many.
   */
  int closeStalled(std::chrono::steady_clock::time_point now, std::chrono::milliseconds limit);
  /** Ends every stream, with its last chunk when @p finish and nothing is half-sent. */
  void closeAll(bool finish);

 private:
  struct Entry {
    ConnectionPtr connection;
    std::shared_ptr<LoopStream> stream;
    bool out_armed = false;  // watching for writability
  };
  void pump(Entry& e);
  void watchWritable(Entry& e, bool on);
  void close(Entry& e);

  const int epoll_fd_;
  const std::function<void()> wake_;
  const std::function<void(const ConnectionPtr&)> release_;
  sdk::GaugeCell* const open_streams_;
  std::unordered_map<int, Entry> streams_;  // the loop thread's only
  std::mutex mutex_;
  bool refusing_ = false;                           // under mutex_
  std::vector<Entry> adopting_;                     // under mutex_
  std::vector<std::shared_ptr<LoopStream>> ready_;  // under mutex_
};

}  // namespace abx::kernel
