// Helpers for the terminal plugin's unit tests: spawn a command on a PTY
// and read its master until the child closes the terminal.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pty_process.h"
#include "support/terminal_output.h"

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
  return abx::testing::readTerminalOutput(p.masterFd(), timeout);
}

}  // namespace abx::plugins::terminal::testing
