#include "state/atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace abx::plugins::agents {

sdk::Status writeFileAtomically(const std::string& dir, const std::string& path,
                                std::string_view body) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return sdk::Status::error("cannot create " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  const std::string temp = path + ".tmp";
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return sdk::Status::error("cannot write " + temp + ": " + std::strerror(errno));
  // A temp file left by an older server with wider bits must not keep them.
  ::fchmod(fd, 0600);
  std::size_t done = 0;
  while (done < body.size()) {
    auto n = ::write(fd, body.data() + done, body.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return sdk::Status::error("cannot write " + temp + ": " + std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced) {
    ::unlink(temp.c_str());
    return sdk::Status::error("cannot sync " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return sdk::Status::error("cannot replace " + path + ": " + std::strerror(error));
  }
  // The rename itself reaches the disk only with the directory.
  if (int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return sdk::Status::ok();
}

std::string moveFileAside(const std::string& path, std::string_view why, std::int64_t now) {
  const std::string aside = path + "." + std::string(why) + "-" + std::to_string(now);
  return ::rename(path.c_str(), aside.c_str()) == 0 ? aside : std::string();
}

}  // namespace abx::plugins::agents
