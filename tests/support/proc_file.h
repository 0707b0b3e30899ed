// Reading /proc in tests: a process (or thread) that ends while its file is
// read makes read(2) fail with ESRCH, and std::ifstream then throws from
// underflow; these readers give "" instead, which callers treat as gone.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <string>

namespace abx::testing {

/** The whole file, or what was read before an error ("" if nothing). */
inline std::string readProcFile(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

/** /proc/<pid>/stat, or "" once the process is gone. */
inline std::string procStatText(pid_t pid) {
  return readProcFile("/proc/" + std::to_string(pid) + "/stat");
}

}  // namespace abx::testing
