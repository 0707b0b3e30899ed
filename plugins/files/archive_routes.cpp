// Limits: at most 10 000 entries and 100 MiB of archive (spec §4.3), or
// less when the policy's max_entries / max_bytes say so; either overflow is
// a 413. Inside the given directories, entries the guard refuses, links
// that leave the boundary, and anything that is not a file, a directory or
// a link (FIFOs, sockets, devices: reading them could block) are skipped,
// as are files that cannot be opened.
#include "archive_routes.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "archive_writer.h"
#include "encoded_response.h"
#include "file_rules.h"
#include "tree_walk.h"

namespace abx::plugins::files {
namespace {

/** An anonymous file for the archive: O_TMPFILE in @p dir, else an unlinked mkstemp. */
Fd scratchFile(const std::string& dir) {
  std::vector<std::string> dirs;
  if (!dir.empty()) dirs.push_back(dir);
  std::error_code ec;  // the temporary directory: TMPDIR, else /tmp
  auto tmp = std::filesystem::temp_directory_path(ec);
  dirs.push_back(ec ? std::string("/tmp") : tmp.string());
  for (const auto& d : dirs) {
    int fd = ::open(d.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return Fd(fd);
    std::string tmpl = d + "/.abx-archive-XXXXXX";
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd >= 0) {
      ::unlink(tmpl.c_str());
      return Fd(fd);
    }
  }
  return Fd();
}

sdk::Response tooMany(std::uint64_t limit) {
  return sdk::Response::error(
      413, "Too many files to archive: the limit is " + std::to_string(limit) + " entries",
      "ValueError", "too_many_files");
}

/** Adds the tree under the directory @p root as @p name/... */
struct TreeAdder {
  const sdk::PathGuard& guard;
  std::string_view endpoint;
  ArchiveWriter& writer;
  std::uint64_t max_files;
  std::uint64_t files = 0;
  bool too_many = false;
  sdk::Status error;

  /** Counts one entry; false once over the cap. */
  bool count() {
    if (++files > max_files) too_many = true;
    return !too_many;
  }

  void addFileAt(const std::string& name, const std::string& path) {
    struct stat st;
    auto fd = openRegularFile(guard, endpoint, path, st);
    if (!fd) return;  // unreadable or replaced meanwhile: skipped
    if (!count()) return;
    error = writer.addFile(name, st, fd->get());
  }

  Visit visit(const std::string& prefix, const DirEntry& e, const std::string& relative) {
    std::string name = prefix + "/" + relative;
    if (e.is_link) {
      char target[4096];
      ssize_t n = ::readlink(e.path.c_str(), target, sizeof target);
      if (n <= 0 || static_cast<std::size_t>(n) >= sizeof target) return Visit::go_on;
      if (!count()) return Visit::stop;
      error = writer.addSymlink(name, std::string_view(target, static_cast<std::size_t>(n)), e.lst);
    } else if (S_ISDIR(e.lst.st_mode)) {
      if (!count()) return Visit::stop;
      error = writer.addDirectory(name, e.lst);
    } else if (S_ISREG(e.lst.st_mode)) {
      addFileAt(name, e.path);
    }
    return too_many || !error ? Visit::stop : Visit::go_on;
  }
};

}  // namespace

sdk::Response archivePaths(const FilesContext& ctx, const sdk::Request& request) {
  auto paths = request.json.stringList("paths");
  if (!paths) return badRequest(paths.status().message());
  if (paths->empty()) return badRequest("Field 'paths' must not be empty");
  auto format_name = request.json.string("format", std::string("tar.gz"));
  if (!format_name) return badRequest(format_name.status().message());
  auto format = parseArchiveFormat(*format_name);
  if (!format)
    return badRequest("Unsupported archive format '" + *format_name + "'; use tar.gz or zip");

  // Every requested path must be allowed and exist before anything is written.
  std::vector<std::pair<std::string, struct stat>> roots;
  for (const auto& path : *paths) {
    auto verdict = ctx.guard->check(request.endpoint, path, sdk::PathOp::read);
    if (!verdict.allowed) return denied(verdict);
    struct stat st;
    if (::stat(verdict.resolved.c_str(), &st) != 0)
      return sdk::Response::error(404, "Path not found: " + path, "FileNotFoundError");
    roots.emplace_back(verdict.resolved, st);
  }

  const std::uint64_t max_bytes = byteLimit(request, kArchiveMaxBytes);
  const std::uint64_t max_files = entryLimit(request, kArchiveMaxFiles);
  Fd out = scratchFile(ctx.staging_dir);
  if (!out) return failure(osError(errno, "cannot create a temporary file"), "archive");
  auto writer = ArchiveWriter::open(out.get(), *format, max_bytes);
  if (!writer) return failure(writer.status(), "archive");

  TreeAdder adder{*ctx.guard, request.endpoint, **writer, max_files, 0, false, {}};
  for (const auto& [resolved, st] : roots) {
    std::string name = baseName(resolved);
    if (S_ISDIR(st.st_mode)) {
      if (!adder.count()) break;
      adder.error = (*writer)->addDirectory(name, st);
      if (!adder.error) break;
      walkTree(*ctx.guard, request.endpoint, resolved,
               [&](const DirEntry& e, const std::string& relative) {
                 return adder.visit(name, e, relative);
               });
    } else if (S_ISREG(st.st_mode)) {
      adder.addFileAt(name, resolved);
    } else {
      return badRequest("Not a regular file or directory: " + name);
    }
    if (adder.too_many || !adder.error) break;
  }
  if (adder.too_many) return tooMany(max_files);
  if (adder.error) adder.error = (*writer)->close();
  if (!adder.error) {
    if (adder.error.type() == "ArchiveTooLarge") return tooLarge(adder.error.message());
    return failure(adder.error, "archive");
  }
  std::uint64_t size = (*writer)->bytesWritten();
  sdk::JsonWriter body;
  body.beginObject().key("content_base64");
  const std::size_t hole = base64Hole(body);
  body.member("format", archiveFormatName(*format))
      .member("bytes", size)
      .member("files", adder.files)
      .endObject();
  return base64JsonResponse(std::move(out), size, body.take(), hole);
}

}  // namespace abx::plugins::files
