// libarchive does the formats: pax (ustar where it can) inside gzip, or
// zip with deflate. Names that are not valid in the locale's charset only
// give a warning, and are stored as raw bytes. The library is bound on the
// first archive (libarchive_api.h).
#include "archive_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "atomic_file.h"
#include "libarchive_api.h"

namespace abx::plugins::files {

std::optional<ArchiveFormat> parseArchiveFormat(std::string_view name) {
  if (name == "tar.gz") return ArchiveFormat::tar_gz;
  if (name == "zip") return ArchiveFormat::zip;
  return std::nullopt;
}

std::string_view archiveFormatName(ArchiveFormat format) {
  return format == ArchiveFormat::zip ? "zip" : "tar.gz";
}

sdk::Result<std::unique_ptr<ArchiveWriter>> ArchiveWriter::open(int fd, ArchiveFormat format,
                                                                std::uint64_t max_bytes) {
  std::string why;
  const LibArchiveApi* api = libArchive(&why);
  if (!api) return sdk::Status::error("Archives are unavailable: " + why, "OSError");
  std::unique_ptr<ArchiveWriter> w(new ArchiveWriter());
  w->api_ = api;
  w->fd_ = fd;
  w->max_bytes_ = max_bytes;
  w->archive_ = api->write_new();
  if (!w->archive_) return sdk::Status::error("libarchive: out of memory", "MemoryError");
  int rc = format == ArchiveFormat::zip ? api->write_set_format_zip(w->archive_)
                                        : (api->write_add_filter_gzip(w->archive_),
                                           api->write_set_format_pax_restricted(w->archive_));
  if (rc != ARCHIVE_OK) return w->failed("cannot set the archive format");
  // No padding of the last block: the size reported is the archive's own.
  api->write_set_bytes_in_last_block(w->archive_, 1);
  rc = api->write_open(w->archive_, w.get(), nullptr, &ArchiveWriter::writeCallback, nullptr);
  if (rc != ARCHIVE_OK) return w->failed("cannot start the archive");
  return w;
}

ArchiveWriter::~ArchiveWriter() {
  if (archive_) api_->write_free(archive_);  // closes too (the trailer, if still open)
}

long ArchiveWriter::writeCallback(struct archive* a, void* self, const void* buffer,
                                  std::size_t length) {
  auto* w = static_cast<ArchiveWriter*>(self);
  if (w->too_large_ || w->written_ + length > w->max_bytes_) {
    w->too_large_ = true;
    w->api_->set_error(a, EFBIG, "archive too large");
    return -1;
  }
  if (!writeAll(w->fd_, std::string_view(static_cast<const char*>(buffer), length))) {
    w->api_->set_error(a, errno ? errno : EIO, "write failed");
    return -1;
  }
  w->written_ += length;
  return static_cast<long>(length);
}

sdk::Status ArchiveWriter::failed(std::string_view what) {
  if (too_large_)
    return sdk::Status::error(
        "Archive too large: the limit is " + std::to_string(max_bytes_) + " bytes",
        "ArchiveTooLarge");
  const char* why = archive_ ? api_->error_string(archive_) : nullptr;
  return sdk::Status::error(std::string(what) + (why ? std::string(": ") + why : ""), "OSError");
}

sdk::Status ArchiveWriter::header(std::string_view name, const struct stat& st, unsigned type,
                                  std::int64_t size, std::string_view link_target) {
  if (too_large_) return failed("archive");
  struct archive_entry* e = api_->entry_new();
  if (!e) return sdk::Status::error("libarchive: out of memory", "MemoryError");
  std::string n(name), target(link_target);
  api_->entry_copy_pathname(e, n.c_str());
  api_->entry_set_filetype(e, type);
  api_->entry_set_perm(e, st.st_mode & 07777);
  api_->entry_set_uid(e, st.st_uid);
  api_->entry_set_gid(e, st.st_gid);
  api_->entry_set_mtime(e, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  api_->entry_set_size(e, size);
  if (type == AE_IFLNK) api_->entry_copy_symlink(e, target.c_str());
  int rc = api_->write_header(archive_, e);
  api_->entry_free(e);
  if (rc < ARCHIVE_WARN) return failed("cannot add '" + n + "'");
  return sdk::Status::ok();
}

sdk::Status ArchiveWriter::addDirectory(std::string_view name, const struct stat& st) {
  return header(name, st, AE_IFDIR, 0, {});
}

sdk::Status ArchiveWriter::addSymlink(std::string_view name, std::string_view target,
                                      const struct stat& st) {
  return header(name, st, AE_IFLNK, 0, target);
}

sdk::Status ArchiveWriter::addFile(std::string_view name, const struct stat& st, int fd) {
  if (auto s = header(name, st, AE_IFREG, st.st_size, {}); !s) return s;
  std::vector<char> buf(64u << 10);
  auto left = static_cast<std::uint64_t>(st.st_size);
  off_t offset = 0;
  while (left > 0) {
    ssize_t n = ::pread(fd, buf.data(), std::min<std::uint64_t>(left, buf.size()), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return osError(errno, "reading '" + std::string(name) + "'");
    if (n == 0) {
      // The file shrank since it was listed: zeros keep the member exactly
      // as long as its header says (zip would be misframed otherwise).
      std::fill(buf.begin(), buf.end(), '\0');
      n = static_cast<ssize_t>(std::min<std::uint64_t>(left, buf.size()));
    }
    if (api_->write_data(archive_, buf.data(), static_cast<std::size_t>(n)) < 0)
      return failed("cannot write '" + std::string(name) + "'");
    left -= static_cast<std::uint64_t>(n);
    offset += n;
  }
  if (api_->write_finish_entry(archive_) < ARCHIVE_WARN)
    return failed("cannot write '" + std::string(name) + "'");
  return sdk::Status::ok();
}

sdk::Status ArchiveWriter::close() {
  if (closed_) return sdk::Status::ok();
  closed_ = true;
  if (api_->write_close(archive_) != ARCHIVE_OK) return failed("cannot finish the archive");
  return sdk::Status::ok();
}

}  // namespace abx::plugins::files
