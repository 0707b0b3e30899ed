// HttpServer: POCO Net's HTTPServer with a sized thread pool and keep-alive,
// handing every request to the Pipeline through a PocoExchange.
#pragma once

#include <Poco/Net/HTTPServer.h>

#include <chrono>
#include <memory>
#include <string>

#include "http/sse_writer.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {

class HttpServer {
 public:
  HttpServer(const Pipeline& pipeline, SseHub& hub, int max_threads);
  ~HttpServer();

  /** Binds @p host:@p port (0 = ephemeral) and starts serving. @return the port. */
  int listen(const std::string& host, int port);
  /**
   * Stops accepting, ends SSE streams, lets in-flight requests finish, and
   * waits up to @p timeout for connections to close.
   */
  void drain(std::chrono::milliseconds timeout);

 private:
  const Pipeline& pipeline_;
  SseHub& hub_;
  int max_threads_;
  std::unique_ptr<Poco::ThreadPool> pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace abx::kernel
