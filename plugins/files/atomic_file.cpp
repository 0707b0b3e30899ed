// Temporary names are random (not derived from the target's name, which may
// already be NAME_MAX long) and dot-prefixed so listings sort them apart.
#include "atomic_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <system_error>

#include "abx/sdk/subprocess.h"

namespace abx::plugins::files {

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

sdk::Status osError(int err, std::string_view what) {
  return sdk::Status::error(std::generic_category().message(err) + ": " + std::string(what),
                            err == EEXIST ? "FileExistsError" : "OSError");
}

sdk::Status writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return osError(errno, "write failed");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return sdk::Status::ok();
}

sdk::Result<AtomicFile> AtomicFile::create(int dir_fd) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = ".abx-tmp-";
    for (int i = 0; i < 12; ++i) name += kChars[rng() % (sizeof kChars - 1)];
    int fd =
        ::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return AtomicFile(dir_fd, Fd(fd), std::move(name));
    if (errno != EEXIST) return osError(errno, "cannot create a temporary file");
  }
  return sdk::Status::error("cannot create a temporary file: too many collisions", "OSError");
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : dir_fd_(other.dir_fd_),
      fd_(std::move(other.fd_)),
      temp_name_(std::move(other.temp_name_)),
      committed_(other.committed_) {
  other.committed_ = true;  // the moved-from object removes nothing
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !temp_name_.empty()) ::unlinkat(dir_fd_, temp_name_.c_str(), 0);
}

sdk::Status renameAt(int from_dir, std::string_view from, int to_dir, std::string_view to,
                     bool overwrite) {
  std::string a(from), b(to);
  int rc = overwrite ? ::renameat(from_dir, a.c_str(), to_dir, b.c_str())
                     : ::renameat2(from_dir, a.c_str(), to_dir, b.c_str(), RENAME_NOREPLACE);
  if (rc == 0) return sdk::Status::ok();
  int err = errno;
  if (err == EEXIST) return sdk::Status::error("File exists: " + b, "FileExistsError");
  if (err == EXDEV) return sdk::Status::error("rename across filesystems", "CrossDeviceError");
  return osError(err, "rename failed");
}

sdk::Status AtomicFile::commitInto(int to_dir, std::string_view name, bool overwrite,
                                   unsigned mode) {
  if (::fchmod(fd_.get(), mode) != 0) return osError(errno, "chmod failed");
  // Children run as the child user when there is one: what a caller uploads
  // is theirs to change, as if they had written it.
  if (auto user = sdk::Subprocess::childUser(); user && ::fchown(fd_.get(), user->uid, user->gid))
    return osError(errno, "chown failed");
  if (::fsync(fd_.get()) != 0) return osError(errno, "fsync failed");
  if (auto s = renameAt(dir_fd_, temp_name_, to_dir, name, overwrite); !s) return s;
  committed_ = true;
  ::fsync(to_dir);  // best effort: some filesystems refuse fsync on a directory
  return sdk::Status::ok();
}

}  // namespace abx::plugins::files
