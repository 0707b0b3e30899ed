// Deleting or moving a directory takes its whole subtree along, so the
// subtree is checked first: if the guard would refuse to remove any entry
// below (a deny or read_only glob), nothing is touched. Removal itself
// works on directory descriptors with O_NOFOLLOW, never following a link.
#include "manage_routes.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <vector>

#include "abx/sdk/json.h"
#include "file_rules.h"

namespace abx::plugins::files {
namespace {

/** {"path": @p path, @p done: true}: what mkdir and delete answer. */
sdk::Response pathDone(const std::string& path, std::string_view done) {
  return sdk::Response::json(
      sdk::JsonWriter().beginObject().member("path", path).member(done, true).endObject().take());
}

/** {"source", "destination"}: what move answers. */
sdk::Response moved(const std::string& source, const std::string& destination) {
  return sdk::Response::json(sdk::JsonWriter()
                                 .beginObject()
                                 .member("source", source)
                                 .member("destination", destination)
                                 .endObject()
                                 .take());
}

/** The first entry below @p dir the guard refuses to remove, if any. */
std::optional<sdk::PathCheck> deniedBelow(const sdk::PathGuard& guard, std::string_view endpoint,
                                          const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return std::nullopt;
  }
  std::vector<std::pair<std::string, bool>> entries;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st;
    bool is_dir = ::fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    entries.emplace_back(std::string(n), is_dir);
  }
  ::closedir(d);
  for (const auto& [name, is_dir] : entries) {
    std::string path = joinPath(dir, name);
    auto verdict = guard.check(endpoint, path, sdk::PathOp::remove);
    if (!verdict.allowed) return verdict;
    if (is_dir)
      if (auto below = deniedBelow(guard, endpoint, path)) return below;
  }
  return std::nullopt;
}

/** rm -rf of @p name in @p parent, never following a symlink. */
sdk::Status removeTree(int parent, const std::string& name) {
  int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return osError(errno, name);
  DIR* d = ::fdopendir(fd);
  if (!d) {
    int err = errno;
    ::close(fd);
    return osError(err, name);
  }
  sdk::Status first;
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  for (const auto& n : names) {
    struct stat st;
    if (::fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    sdk::Status s;
    if (S_ISDIR(st.st_mode))
      s = removeTree(fd, n);
    else if (::unlinkat(fd, n.c_str(), 0) != 0 && errno != ENOENT)
      s = osError(errno, n);
    if (!s && first) first = s;
  }
  ::closedir(d);
  if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT && first)
    first = osError(errno, name);
  return first;
}

/** Copies regular file @p name from @p from_dir into @p to_dir as @p to (across filesystems). */
sdk::Status copyFileAcross(int from_dir, const std::string& name, int to_dir, const std::string& to,
                           bool overwrite, mode_t mode) {
  int in = ::openat(from_dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) return osError(errno, name);
  Fd src(in);
  auto out = AtomicFile::create(to_dir);
  if (!out) return out.status();
  std::vector<char> buf(64u << 10);
  while (true) {
    ssize_t n = ::read(src.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return osError(errno, name);
    if (n == 0) break;
    if (auto s = out->write(std::string_view(buf.data(), static_cast<std::size_t>(n))); !s)
      return s;
  }
  if (auto s = out->commit(to, overwrite, mode & 07777); !s) return s;
  if (::unlinkat(from_dir, name.c_str(), 0) != 0) return osError(errno, name);
  return sdk::Status::ok();
}

}  // namespace

sdk::Response makeDirectory(const FilesContext& ctx, const sdk::Request& request) {
  auto path = request.json.string("path");
  if (!path) return badRequest(path.status().message());
  auto verdict = ctx.guard->check(request.endpoint, *path, sdk::PathOp::write);
  if (!verdict.allowed) return denied(verdict);
  struct stat st;
  if (::stat(verdict.resolved.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    return sdk::Response::error(409, "File exists and is not a directory: " + *path,
                                "FileExistsError", "file_exists");
  if (auto s = makeDirectories(*ctx.guard, request.endpoint, verdict.resolved); !s)
    return failure(s, *path);
  return pathDone(verdict.resolved, "created");
}

sdk::Response deletePath(const FilesContext& ctx, const sdk::Request& request) {
  auto p = request.queryParam("path");
  if (!p || p->empty()) return badRequest("Missing required parameter 'path'");
  std::string path(*p);
  auto verdict = ctx.guard->check(request.endpoint, path, sdk::PathOp::remove);
  if (!verdict.allowed) return denied(verdict);
  auto parent =
      openDirectory(*ctx.guard, request.endpoint, parentPath(verdict.resolved), sdk::PathOp::read);
  if (!parent) {
    if (parent.status().type() == "FileNotFoundError" ||
        parent.status().type() == "NotADirectoryError")
      return failure(sdk::Status::error("", "FileNotFoundError"), path);
    return failure(parent.status(), path);
  }
  std::string name = baseName(verdict.resolved);
  struct stat st;
  if (::fstatat(parent->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return failure(
        errno == ENOENT ? sdk::Status::error("", "FileNotFoundError") : osError(errno, path), path);
  sdk::Status s;
  if (S_ISDIR(st.st_mode)) {
    if (auto below = deniedBelow(*ctx.guard, request.endpoint, verdict.resolved))
      return denied(*below);
    s = removeTree(parent->get(), name);
  } else if (::unlinkat(parent->get(), name.c_str(), 0) != 0) {
    s = osError(errno, path);
  }
  if (!s) return failure(s, path);
  return pathDone(verdict.resolved, "deleted");
}

sdk::Response movePath(const FilesContext& ctx, const sdk::Request& request) {
  auto source = request.json.string("source");
  if (!source) return badRequest(source.status().message());
  auto destination = request.json.string("destination");
  if (!destination) return badRequest(destination.status().message());
  const auto& guard = *ctx.guard;
  const std::string_view ep = request.endpoint;

  auto from = guard.check(ep, *source, sdk::PathOp::remove);
  if (!from.allowed) return denied(from, "source: ");
  auto to = guard.check(ep, *destination, sdk::PathOp::write);
  if (!to.allowed) return denied(to, "destination: ");

  auto from_dir = openDirectory(guard, ep, parentPath(from.resolved), sdk::PathOp::read);
  if (!from_dir) {
    auto type = from_dir.status().type();
    if (type == "FileNotFoundError" || type == "NotADirectoryError")
      return failure(sdk::Status::error("", "FileNotFoundError"), *source, "source: ");
    return failure(from_dir.status(), *source, "source: ");
  }
  std::string from_name = baseName(from.resolved);
  struct stat src_st;
  if (::fstatat(from_dir->get(), from_name.c_str(), &src_st, AT_SYMLINK_NOFOLLOW) != 0)
    return failure(sdk::Status::error("", "FileNotFoundError"), *source, "source: ");

  // shutil.move: an existing directory receives the source inside it.
  struct stat dst_st;
  if (::stat(to.resolved.c_str(), &dst_st) == 0 && S_ISDIR(dst_st.st_mode) &&
      to.resolved != from.resolved) {
    std::string inside = joinPath(to.resolved, from_name);
    to = guard.check(ep, inside, sdk::PathOp::write);
    if (!to.allowed) return denied(to, "destination: ");
  }
  if (to.resolved == from.resolved) return moved(from.resolved, to.resolved);
  std::string to_name = baseName(to.resolved);
  if (auto bad = checkExtension(request, to_name, "destination: ")) return std::move(*bad);
  if (S_ISDIR(src_st.st_mode))
    if (auto below = deniedBelow(guard, ep, from.resolved)) return denied(*below, "source: ");
  if (auto s = makeDirectories(guard, ep, parentPath(to.resolved)); !s)
    return failure(s, *destination, "destination: ");
  auto to_dir = openDirectory(guard, ep, parentPath(to.resolved), sdk::PathOp::read);
  if (!to_dir) return failure(to_dir.status(), *destination, "destination: ");

  const bool overwrite = overwriteAllowed(request);
  struct stat existing;
  if (::fstatat(to_dir->get(), to_name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 && !overwrite)
    return fileExists(*destination, "destination: ");

  auto s = renameAt(from_dir->get(), from_name, to_dir->get(), to_name, overwrite);
  if (!s && s.type() == "CrossDeviceError") {
    if (!S_ISREG(src_st.st_mode))
      return sdk::Response::error(
          500, "destination: only regular files can be moved across filesystems", "OSError");
    s = copyFileAcross(from_dir->get(), from_name, to_dir->get(), to_name, overwrite,
                       src_st.st_mode);
  }
  if (!s) {
    if (s.type() == "FileExistsError") return fileExists(*destination, "destination: ");
    if (s.message().starts_with("Invalid argument"))
      return badRequest("destination: cannot move a directory into itself");
    if (s.message().starts_with("Directory not empty"))
      return sdk::Response::error(409, "destination: Directory not empty: " + *destination,
                                  "FileExistsError", "file_exists");
    if (s.message().starts_with("Is a directory") || s.message().starts_with("Not a directory"))
      return badRequest("destination: " + s.message().substr(0, s.message().find(':')) + ": " +
                        *destination);
    return failure(s, *destination, "destination: ");
  }
  return moved(from.resolved, to.resolved);
}

}  // namespace abx::plugins::files
