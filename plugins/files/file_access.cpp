// Denials carry only what the guard said and the path as the caller gave
// it, so no error body becomes an existence oracle for outside paths.
#include "file_access.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace abx::plugins::files {
namespace {

std::string guardMessage(std::string_view code, std::string_view path) {
  std::string_view prefix = "Path not allowed: ";
  if (code == "path_denied") prefix = "Path denied: ";
  if (code == "read_only") prefix = "Path is read-only: ";
  if (code == "symlink_denied") prefix = "Symbolic links are not allowed: ";
  if (code == "invalid_path") return "Invalid path";
  return std::string(prefix) + std::string(path);
}

}  // namespace

sdk::Response denied(const sdk::PathCheck& verdict, std::string_view prefix) {
  return sdk::Response::error(verdict.status, std::string(prefix) + verdict.message,
                              verdict.status == 400 ? "ValueError" : "PermissionError",
                              verdict.code);
}

sdk::Response failure(const sdk::Status& status, std::string_view path, std::string_view prefix) {
  const std::string& type = status.type();
  std::string p(prefix);
  if (type == "PermissionError") {
    // PathGuard::open reports a denial with the guard's code as message.
    const std::string& code = status.message();
    bool is_code = code.find(' ') == std::string::npos && !code.empty();
    return sdk::Response::error(403, p + (is_code ? guardMessage(code, path) : code),
                                "PermissionError", is_code ? code : "");
  }
  if (type == "FileNotFoundError")
    return sdk::Response::error(404, p + "File not found: " + std::string(path),
                                "FileNotFoundError");
  if (type == "FileExistsError")
    return sdk::Response::error(409, p + "File exists: " + std::string(path), "FileExistsError",
                                "file_exists");
  if (type == "ValueError" || type == "IsADirectoryError" || type == "NotADirectoryError")
    return sdk::Response::error(400, p + status.message(), type);
  return sdk::Response::error(500, p + status.message(), type.empty() ? "OSError" : type);
}

sdk::Response badRequest(std::string_view message) {
  return sdk::Response::error(400, message, "ValueError");
}

std::string baseName(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string parentPath(std::string_view path) {
  auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  return slash == 0 ? "/" : std::string(path.substr(0, slash));
}

std::string joinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string isoTime(const struct timespec& t) {
  struct tm tm {};
  time_t secs = t.tv_sec;
  gmtime_r(&secs, &tm);
  char buf[64];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string out(buf, n);
  long micros = t.tv_nsec / 1000;
  if (micros) {
    std::snprintf(buf, sizeof buf, ".%06ld", micros);
    out += buf;
  }
  return out + "+00:00";
}

std::string permissions(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%03o", static_cast<unsigned>(mode & 0777));
  return buf;
}

sdk::Result<Fd> openDirectory(const sdk::PathGuard& guard, std::string_view endpoint,
                              std::string_view resolved, sdk::PathOp op) {
  auto fd = guard.open(endpoint, resolved, op, O_RDONLY | O_DIRECTORY);
  if (!fd) {
    if (fd.status().type() == "OSError" && fd.status().message().starts_with("Not a directory"))
      return sdk::Status::error("Not a directory: " + std::string(resolved), "NotADirectoryError");
    return fd.status();
  }
  return Fd(*fd);
}

sdk::Result<Fd> openRegularFile(const sdk::PathGuard& guard, std::string_view endpoint,
                                std::string_view resolved, struct stat& st) {
  auto opened = guard.open(endpoint, resolved, sdk::PathOp::read, O_RDONLY | O_NONBLOCK);
  if (!opened) return opened.status();
  Fd fd(*opened);
  if (::fstat(fd.get(), &st) != 0) return osError(errno, std::string(resolved));
  if (S_ISDIR(st.st_mode))
    return sdk::Status::error("Is a directory: " + std::string(resolved), "IsADirectoryError");
  if (!S_ISREG(st.st_mode))
    return sdk::Status::error("Not a regular file: " + std::string(resolved), "ValueError");
  // Back to blocking reads for a regular file.
  int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

sdk::Status makeDirectories(const sdk::PathGuard& guard, std::string_view endpoint,
                            std::string_view resolved_dir) {
  std::vector<std::string> missing;
  std::string dir(resolved_dir);
  while (dir != "/" && !dir.empty()) {
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return sdk::Status::error("Not a directory: " + dir, "NotADirectoryError");
      break;
    }
    missing.push_back(dir);
    dir = parentPath(dir);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    auto verdict = guard.check(endpoint, *it, sdk::PathOp::write);
    if (!verdict.allowed) return sdk::Status::error(verdict.code, "PermissionError");
    auto parent = openDirectory(guard, endpoint, parentPath(verdict.resolved), sdk::PathOp::read);
    if (!parent) return parent.status();
    std::string name = baseName(verdict.resolved);
    if (::mkdirat(parent->get(), name.c_str(), 0755) != 0) {
      if (errno == EEXIST) continue;
      return osError(errno, "cannot create directory " + *it);
    }
    // The child user's, like an uploaded file (see AtomicFile::commitInto).
    if (auto user = sdk::Subprocess::childUser();
        user && ::fchownat(parent->get(), name.c_str(), user->uid, user->gid, AT_SYMLINK_NOFOLLOW))
      return osError(errno, "cannot hand directory " + *it + " to the child user");
  }
  return sdk::Status::ok();
}

}  // namespace abx::plugins::files
