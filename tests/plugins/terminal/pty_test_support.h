// Helpers for the terminal plugin's unit tests: spawn a command on a PTY
// and read its master until the child closes the terminal.
#pragma once

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pty_process.h"

namespace abx::plugins::terminal::testing {

inline std::unique_ptr<PtyProcess> spawnOrDie(std::vector<std::string> argv, int cols = 80,
                                              int rows = 24,
                                              std::vector<std::string> env = {
                                                  "PATH=/usr/bin:/bin"}) {
  sdk::SpawnOptions o;
  o.argv = std::move(argv);
  o.env = std::move(env);
  o.terminal = sdk::TerminalSize{rows, cols};
  auto p = PtyProcess::spawn(o);
  if (!p) throw std::runtime_error(p.status().message());
  return std::move(p).value();
}

/** Everything the child writes until the terminal closes (EIO) or @p timeout. */
inline std::string readAll(PtyProcess& p,
                           std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd fd{p.masterFd(), POLLIN, 0};
    if (::poll(&fd, 1, 50) <= 0) continue;
    const ssize_t n = ::read(p.masterFd(), buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EAGAIN) {
      break;
    }
  }
  return out;
}

}  // namespace abx::plugins::terminal::testing
