// The `healthcheck` command's client: one `GET /health` (or `/ready`) over a plain socket
// (the kernel's own I/O, no HTTP client library), bounded by one timeout
// that covers name lookup, connect, send and the answer's status line.
#pragma once

#include <chrono>
#include <string>

namespace abx::kernel {

struct HealthProbeResult {
  int status = 0;    /**< the HTTP status, 0 when none was read */
  std::string error; /**< why no status was read */
};

/** GET @p path ("/health" or "/ready") and read the status line. */
HealthProbeResult probeHealth(const std::string& host, int port, const std::string& path,
                              std::chrono::milliseconds timeout);

}  // namespace abx::kernel
