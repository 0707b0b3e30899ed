#include "security/base_dir_path_guard.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace abx::kernel {
namespace {

namespace fs = std::filesystem;

bool within(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root ||
         (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/');
}

// realpath() of the longest existing prefix, with the rest appended: a path
// to be created resolves like its parent, and a symlink anywhere in the
// existing part is followed before the boundary check.
std::string resolve(const fs::path& absolute) {
  fs::path existing = absolute;
  fs::path rest;
  while (!existing.empty() && existing != existing.root_path()) {
    char buf[PATH_MAX];
    if (::realpath(existing.c_str(), buf)) {
      fs::path out(buf);
      if (!rest.empty()) out /= rest;
      return out.lexically_normal().string();
    }
    rest = rest.empty() ? existing.filename() : existing.filename() / rest;
    existing = existing.parent_path();
  }
  return absolute.lexically_normal().string();
}

sdk::PathCheck deny(std::string code, std::string message, int status = 403) {
  sdk::PathCheck c;
  c.allowed = false;
  c.status = status;
  c.code = std::move(code);
  c.message = std::move(message);
  return c;
}

}  // namespace

BaseDirPathGuard::BaseDirPathGuard(std::string base_dir) {
  base_ = resolve(fs::path(base_dir.empty() ? "/home/user" : base_dir));
}

sdk::PathCheck BaseDirPathGuard::check(std::string_view, std::string_view path, sdk::PathOp) const {
  if (path.empty() || path.find('\0') != std::string_view::npos)
    return deny("invalid_path", "Invalid path", 400);
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base_) / p;
  std::string resolved = resolve(p.lexically_normal());
  for (const char* forbidden : {"/proc", "/sys", "/dev"})
    if (within(resolved, forbidden))
      return deny("path_denied", "Path not allowed: " + std::string(path));
  if (resolved == "/" || !within(resolved, base_))
    return deny("path_not_allowed", "Path not allowed: " + std::string(path));
  sdk::PathCheck ok;
  ok.allowed = true;
  ok.status = 200;
  ok.resolved = std::move(resolved);
  return ok;
}

sdk::Result<int> BaseDirPathGuard::open(std::string_view endpoint, std::string_view path,
                                        sdk::PathOp op, int flags, int mode) const {
  auto verdict = check(endpoint, path, op);
  if (!verdict.allowed) return sdk::Status::error(verdict.code, "PermissionError");
  // O_NOFOLLOW: a final component swapped for a symlink after check() fails
  // here with ELOOP instead of escaping the boundary.
  int fd = ::open(verdict.resolved.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    return sdk::Status::error(std::strerror(errno),
                              errno == ENOENT ? "FileNotFoundError" : "OSError");
  return fd;
}

}  // namespace abx::kernel
