// Reading a child's pseudo-terminal in tests: everything it writes until it
// closes the terminal (the master then reads EIO) or the time is up.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>

namespace abx::testing {

/** What arrives on the (non-blocking) master @p fd until EIO or @p timeout. */
inline std::string readTerminalOutput(
    int fd, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 50) <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EAGAIN) {
      break;
    }
  }
  return out;
}

}  // namespace abx::testing
