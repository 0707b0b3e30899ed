// AccessLog: one line per answered request, every request (404s, refusals;
// a stream when its handler returns or it leaves for the event loop), for
// operators who want a web server's access log.
// Off unless --access-log / ABX_ACCESS_LOG names a file (or "-" for stderr).
// The path is the normalised path without its query (a query may carry a
// WebSocket ticket or a file name a caller considers private); no header,
// body or token is ever written.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "support/log_sink.h"

namespace abx::kernel {

struct AccessEntry {
  std::string_view remote; /**< the peer's address, "" when unknown */
  std::string_view identity;
  std::string_view method;
  std::string_view path;
  int status = 0;
  double duration_ms = 0;
  std::string_view request_id;
  std::string_view endpoint; /**< "" before routing (404, 501, preflight) */
};

class AccessLog {
 public:
  /** Writes to @p sink (not owned), in @p format. */
  AccessLog(std::FILE* sink, LogFormat format) : sink_(sink), format_(format) {}
  void record(const AccessEntry& entry);
  /** text: `<remote> <identity> [<time>] "<METHOD> <path>" <status> <ms> <request id> <endpoint>`.
   */
  static std::string format(const AccessEntry& entry, LogFormat format);

 private:
  std::FILE* sink_;
  LogFormat format_;
  std::mutex mutex_;
};

}  // namespace abx::kernel
