#include "shell_identity.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

namespace abx::plugins::terminal {
namespace {

constexpr int kMaxLinks = 40;  // the kernel's MAXSYMLINKS

std::string parentOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<std::string> realPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

// Root's link in a root-owned directory only root may write; with the
// server itself running as root, only in a system directory.
bool isSystemLink(const std::string& link, const struct stat& st) {
  struct stat dir {};
  if (st.st_uid != 0 || ::stat(parentOf(link).c_str(), &dir) != 0 || dir.st_uid != 0 ||
      (dir.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return false;
  if (::geteuid() != 0) return true;
  auto real_dir = realPath(parentOf(link));
  return real_dir && (real_dir->starts_with("/usr/") || *real_dir == "/etc/alternatives");
}

bool onlySystemLinks(std::string path) {
  for (int i = 0; i < kMaxLinks; ++i) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return true;
    if (!isSystemLink(path, st)) return false;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return false;
    std::string target(buf, static_cast<std::size_t>(n));
    path = target.front() == '/' ? target : parentOf(path) + "/" + target;
  }
  return false;
}

bool listed(const std::string& real, const std::vector<std::string>& allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& entry) {
    return entry == real || (entry.find('/') == std::string::npos && entry == baseName(real));
  });
}

/** The interpreter path of a #! file, or "" when it is none. */
std::string interpreterOf(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  char head[256];
  const ssize_t n = ::read(fd, head, sizeof head);
  ::close(fd);
  if (n < 2 || head[0] != '#' || head[1] != '!') return {};
  std::string line(head + 2, static_cast<std::size_t>(n) - 2);
  line = line.substr(0, line.find('\n'));
  const auto start = line.find_first_not_of(" \t");
  if (start == std::string::npos) return {};
  return line.substr(start, line.find_first_of(" \t\r", start) - start);
}

}  // namespace

bool shellFileAllowed(const std::string& resolved, const std::vector<std::string>& allowed) {
  auto real = realPath(resolved);
  if (!real) return false;
  if (*real != resolved && !onlySystemLinks(resolved) && !listed(*real, allowed)) return false;
  const std::string interpreter = interpreterOf(*real);
  if (interpreter.empty()) return true;
  auto real_interpreter = realPath(interpreter);
  return real_interpreter && (listed(interpreter, allowed) || listed(*real_interpreter, allowed));
}

}  // namespace abx::plugins::terminal
