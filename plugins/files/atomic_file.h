// AtomicFile: a new file's content written next to its target and put in
// place with one rename, so a reader sees the old file or the whole new one,
// never a half-written one, and a failed or interrupted write leaves the
// target as it was. Works on directory file descriptors, so the directory
// checked by the PathGuard is the one written to even if a path component
// is swapped meanwhile.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::plugins::files {

/** An owned file descriptor (-1: none). Move-only. */
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/** Writes all of @p bytes to @p fd (retrying short writes and EINTR). */
sdk::Status writeAll(int fd, std::string_view bytes);

/**
 * A temporary file ".abx-tmp-XXXXXXXX" in a directory, created O_EXCL with
 * mode 0600. Destroyed before commit(): the temporary file is removed.
 * THREAD: one owner.
 */
class AtomicFile {
 public:
  /**
   * Creates the temporary file in @p dir_fd (not owned; must stay open
   * until commit or destruction).
   */
  static sdk::Result<AtomicFile> create(int dir_fd);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  int fd() const { return fd_.get(); }
  const std::string& tempName() const { return temp_name_; }
  sdk::Status write(std::string_view bytes) { return writeAll(fd_.get(), bytes); }

  /**
   * fchmod @p mode, fsync, then rename onto @p name in the same directory.
   * With @p overwrite false an existing @p name is left alone and the call
   * fails with type FileExistsError. The directory is fsynced afterwards so
   * the rename survives a crash.
   */
  sdk::Status commit(std::string_view name, bool overwrite, unsigned mode = 0644) {
    return commitInto(dir_fd_, name, overwrite, mode);
  }
  /**
   * commit() into another directory @p to_dir. Across filesystems the call
   * fails with type CrossDeviceError and the temporary file stays (the
   * caller copies it instead).
   */
  sdk::Status commitInto(int to_dir, std::string_view name, bool overwrite, unsigned mode = 0644);

 private:
  AtomicFile(int dir_fd, Fd fd, std::string temp_name)
      : dir_fd_(dir_fd), fd_(std::move(fd)), temp_name_(std::move(temp_name)) {}
  int dir_fd_ = -1;
  Fd fd_;
  std::string temp_name_;
  bool committed_ = false;
};

/**
 * renameat, or renameat2(RENAME_NOREPLACE) when @p overwrite is false.
 * Failures carry errno's message; EEXIST has type FileExistsError, EXDEV
 * CrossDeviceError.
 */
sdk::Status renameAt(int from_dir, std::string_view from, int to_dir, std::string_view to,
                     bool overwrite);

/** An OSError Status for @p err ("<strerror>: <what>"). */
sdk::Status osError(int err, std::string_view what);

}  // namespace abx::plugins::files
