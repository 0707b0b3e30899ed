// StreamLoop: the thread that pumps the streams handlers detach, apart from
// the loop that accepts connections and reads their heads. Fanning one event
// out to thousands of subscribers takes milliseconds of sends; on a thread
// of its own that work never delays a liveness probe or the next request's
// head, and the connection loop can run at a higher priority than it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "abx/sdk/metrics.h"
#include "http/connection.h"
#include "http/sse_writer.h"
#include "http/stream_set.h"

namespace abx::kernel {

class StreamLoop {
 public:
  /**
   * @p release ends a connection and its share of the caps (any thread);
   * @p stall_limit: a stream whose client took no byte for this long while
   * more waited is reset; @p open_streams (may be null) counts the streams.
   * The thread starts with the first stream and takes the niceness of the
   * thread that built this.
   */
  StreamLoop(SseHub& hub, std::function<void(const ConnectionPtr&)> release,
             std::chrono::milliseconds stall_limit, sdk::GaugeCell* open_streams);
  ~StreamLoop();
  StreamLoop(const StreamLoop&) = delete;
  StreamLoop& operator=(const StreamLoop&) = delete;

  /** On a worker, inside a stream handler: @p c moves here. Null once draining. */
  std::shared_ptr<sdk::SseWaker> adopt(const ConnectionPtr& c, SseWriter::Handoff handoff,
                                       std::shared_ptr<void> hold);
  /** Refuses new streams and ends the open ones with their last chunk. THREAD: any. */
  void drain();
  /** Ends every stream at once and joins the thread. */
  void stop();

 private:
  void run();
  void wake();
  void sweep();

  SseHub& hub_;
  const std::chrono::milliseconds stall_limit_;
  const int nice_;
  const int epoll_fd_;
  const int wake_fd_;
  StreamSet streams_;
  std::once_flag started_;
  std::thread thread_;
  std::chrono::steady_clock::time_point last_sweep_{};
  std::atomic<bool> draining_{false};
  std::atomic<bool> stop_{false};
};

}  // namespace abx::kernel
