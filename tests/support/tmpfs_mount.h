// TmpfsMount: a small tmpfs mounted on a fresh temporary directory for the
// disk-full tests, unmounted (lazily if busy) and removed when it goes out
// of scope, whatever the test's outcome. Mounting needs root: a test skips
// without it, except under CI=true, where the machines run as root and a
// failed mount must fail the test instead of hiding it.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace abx::testing {

class TmpfsMount {
 public:
  /** Mounts @p bytes of tmpfs; nullopt with @p why on failure. */
  static std::optional<TmpfsMount> make(std::uint64_t bytes, std::string& why) {
    char tmpl[] = "/tmp/abx-diskfull-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      why = std::string("mkdtemp: ") + std::strerror(errno);
      return std::nullopt;
    }
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::mount("tmpfs", tmpl, "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
      why = std::string("mount tmpfs: ") + std::strerror(errno);
      ::rmdir(tmpl);
      return std::nullopt;
    }
    return TmpfsMount(tmpl);
  }

  TmpfsMount(TmpfsMount&& other) noexcept : dir_(std::move(other.dir_)) { other.dir_.clear(); }
  TmpfsMount& operator=(TmpfsMount&&) = delete;
  ~TmpfsMount() {
    if (dir_.empty()) return;
    if (::umount2(dir_.c_str(), 0) != 0) ::umount2(dir_.c_str(), MNT_DETACH);
    ::rmdir(dir_.c_str());
  }

  const std::string& dir() const { return dir_; }

  /** Bytes an unprivileged writer may still use. */
  std::uint64_t freeBytes() const {
    struct statvfs st {};
    if (::statvfs(dir_.c_str(), &st) != 0) return 0;
    return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  }

  /** Writes @p path until only about @p leave bytes stay free. */
  void fillLeaving(const std::string& path, std::uint64_t leave) const {
    const std::uint64_t free = freeBytes();
    const std::uint64_t want = free > leave ? free - leave : 0;
    std::ofstream out(path, std::ios::binary);
    const std::string block(4096, 'f');
    for (std::uint64_t done = 0; done < want && out; done += block.size())
      out.write(block.data(),
                static_cast<std::streamsize>(std::min<std::uint64_t>(block.size(), want - done)));
  }

 private:
  explicit TmpfsMount(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

inline bool underCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

}  // namespace abx::testing

// Declares `mount_var` (a TmpfsMount of `bytes`) or skips the test, or fails
// it under CI=true.
#define ABX_TMPFS_OR_SKIP(mount_var, bytes)                                         \
  std::string mount_var##_why;                                                      \
  auto mount_var##_made = ::abx::testing::TmpfsMount::make(bytes, mount_var##_why); \
  if (!mount_var##_made) {                                                          \
    if (::abx::testing::underCi()) FAIL() << mount_var##_why;                       \
    GTEST_SKIP() << "needs root to mount a tmpfs: " << mount_var##_why;             \
  }                                                                                 \
  auto& mount_var = *mount_var##_made
