// Connection: one client socket as the event loop keeps it between
// requests — its peer (for the caps), the bytes of its next request, its
// deadline.
#pragma once

#include <chrono>
#include <memory>
#include <string>

namespace abx::kernel {

struct Connection {
  int fd = -1;
  std::string peer;
  std::string buffer;  // bytes of the next request read so far
  std::chrono::steady_clock::time_point deadline;
  bool in_head = false;   // a request's head has started arriving
  bool over_cap = false;  // beyond a connection cap: probes only, one request
  bool watched = false;   // registered with epoll (the loop thread's)
};
using ConnectionPtr = std::shared_ptr<Connection>;

}  // namespace abx::kernel
