// HttpServer: the server's HTTP/1.1 front end. One event-loop thread owns
// every socket: it accepts, reads each request's head under a total
// deadline, keeps idle keep-alive connections parked, caps connections per
// peer and in total, and hands each complete request to a worker, which
// runs the Pipeline on it and gives the connection back for its next
// request; it answers the liveness probes itself. The SSE streams handlers
// detach are pumped by a second loop thread (StreamLoop), so fanning events
// out never delays a probe. A connection holds a worker only while one of
// its requests runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>

#include "http/sse_writer.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {

struct ConnectionLimits {
  std::size_t max_connections = 10000;   /**< open at once; more get 503 */
  std::size_t max_per_peer = 2000;       /**< from one address; more get 503 */
  std::chrono::seconds head_timeout{10}; /**< a request's whole head, not per read */
  std::chrono::seconds idle_timeout{30}; /**< a parked keep-alive connection */
  /** One blocking read or write on a worker; a loop stream whose socket took no byte. */
  std::chrono::seconds io_timeout{60};
};

class HttpServer {
 public:
  /** @p metrics: where connections, refusals and streams are counted; null: nowhere. */
  HttpServer(const Pipeline& pipeline, SseHub& hub, int max_threads, ConnectionLimits limits = {},
             const KernelMetrics* metrics = nullptr);
  ~HttpServer();

  /** Binds @p host:@p port (0 = ephemeral) and starts serving. @return the port. */
  int listen(const std::string& host, int port);
  /**
   * Stops accepting, ends SSE streams, lets in-flight requests finish, and
   * waits up to @p timeout for them.
   */
  void drain(std::chrono::milliseconds timeout);

 private:
  class Loop;
  std::unique_ptr<Loop> loop_;
};

}  // namespace abx::kernel
