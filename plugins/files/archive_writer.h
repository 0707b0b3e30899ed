// ArchiveWriter: tar.gz or zip written with libarchive into a file
// descriptor, entry by entry, in bounded memory, stopping as soon as the
// output passes a size cap.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "abx/sdk/status.h"

struct archive;

namespace abx::plugins::files {

struct LibArchiveApi;

enum class ArchiveFormat { tar_gz, zip };

/** "tar.gz" or "zip"; nullopt for anything else. */
std::optional<ArchiveFormat> parseArchiveFormat(std::string_view name);
std::string_view archiveFormatName(ArchiveFormat format);

/** THREAD: one owner. */
class ArchiveWriter {
 public:
  /**
   * Starts an archive written to @p fd (not owned). Once more than
   * @p max_bytes were produced every call fails with type ArchiveTooLarge.
   */
  static sdk::Result<std::unique_ptr<ArchiveWriter>> open(int fd, ArchiveFormat format,
                                                          std::uint64_t max_bytes);
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  /** Member names are stored as given (bytes); mode, owner and mtime come from @p st. */
  sdk::Status addDirectory(std::string_view name, const struct stat& st);
  sdk::Status addSymlink(std::string_view name, std::string_view target, const struct stat& st);
  /** Stores st.st_size bytes read from @p fd (a file that shrank is padded with zeros). */
  sdk::Status addFile(std::string_view name, const struct stat& st, int fd);
  /** Writes the trailer. */
  sdk::Status close();

  std::uint64_t bytesWritten() const { return written_; }

 private:
  ArchiveWriter() = default;
  static long writeCallback(struct archive*, void* self, const void* buffer, std::size_t length);
  sdk::Status header(std::string_view name, const struct stat& st, unsigned type, std::int64_t size,
                     std::string_view link_target);
  sdk::Status failed(std::string_view what);

  const LibArchiveApi* api_ = nullptr;
  struct archive* archive_ = nullptr;
  int fd_ = -1;
  std::uint64_t max_bytes_ = 0;
  std::uint64_t written_ = 0;
  bool too_large_ = false;
  bool closed_ = false;
};

}  // namespace abx::plugins::files
