// Subprocess's shared pieces (subprocess_support.h).
#include "subprocess_support.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <system_error>

#include "abx/sdk/utf8.h"

namespace abx::sdk::subprocess_detail {
std::string errnoMessage(int err) {
  return std::error_code(err, std::generic_category()).message();
}

const char* errnoType(int err) {
  switch (err) {
    case ENOENT:
      return "FileNotFoundError";
    case EACCES:
    case EPERM:
      return "PermissionError";
    case ENOTDIR:
      return "NotADirectoryError";
    case EISDIR:
      return "IsADirectoryError";
    case EPIPE:
      return "BrokenPipeError";
    default:
      return "OSError";
  }
}

Status errnoStatus(const std::string& what, int err) {
  return Status::error(what + ": " + errnoMessage(err), errnoType(err));
}

// Python's convention: a signal death is reported as -signal.
int decodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return -WTERMSIG(status);
  return -1;
}

Clock::time_point deadlineAfter(milliseconds timeout) {
  // milliseconds::max() would overflow steady_clock's nanoseconds.
  constexpr milliseconds kLongest = std::chrono::hours(24 * 365 * 10);
  return Clock::now() + std::clamp(timeout, milliseconds{0}, kLongest);
}

int toPollMs(Clock::duration d) {
  if (d <= Clock::duration::zero()) return 0;
  // Rounding up: rounding down would turn the last sub-millisecond into a busy loop.
  const auto ms = std::chrono::ceil<milliseconds>(d).count();
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

Status makePipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errnoStatus("pipe2", errno);
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  for (UniqueFd* end : {&read_end, &write_end}) {
    if (Status s = keepAboveStdio(*end); !s) return s;
  }
  return Status::ok();
}

// An fd numbered 0..2 (the server closed its stdio) would be clobbered by the
// child's dup2 onto 0..2, or dup2'd onto itself and keep CLOEXEC.
Status keepAboveStdio(UniqueFd& fd) {
  if (fd.get() > 2) return Status::ok();
  const int moved = ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return errnoStatus("fcntl(F_DUPFD_CLOEXEC)", errno);
  fd.reset(moved);
  return Status::ok();
}

void setNonBlocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

std::optional<std::string_view> envValue(const std::vector<std::string>& env,
                                         std::string_view name) {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return std::string_view(entry).substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string currentDirectory() {
  std::string buf(PATH_MAX, '\0');
  if (::getcwd(buf.data(), buf.size()) == nullptr) return ".";
  buf.resize(std::char_traits<char>::length(buf.data()));
  return buf;
}

// The child's PATH, not the server's: the server's environment never reaches
// children, so its PATH must not decide what they run either.
Result<std::string> resolveProgram(const SpawnOptions& options) {
  const std::string& name = options.argv[0];
  if (name.empty()) return Status::error("Subprocess: argv[0] is empty", "ValueError");
  // With a '/', exec resolves it after the chdir, like a shell's `cd dir && ./x`.
  if (name.find('/') != std::string::npos) return name;
  const std::string_view path = envValue(options.env, "PATH").value_or(kDefaultPath);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    std::string dir(path.substr(start, end - start));
    start = end + 1;
    if (dir.empty()) dir = ".";  // POSIX: an empty element is the current directory
    std::string candidate = dir + "/" + name;
    if (candidate.front() != '/') {
      // Relative PATH elements mean the child's cwd; make the result absolute
      // so it still names the same file after the chdir.
      std::string base = options.cwd.empty() ? currentDirectory() : options.cwd;
      if (base.front() != '/') base = currentDirectory() + "/" + base;
      candidate = base + "/" + candidate;
    }
    if (isExecutableFile(candidate)) return candidate;
  }
  return Status::error(
      "No such file or directory: '" + name + "' (searched PATH=" + std::string(path) + ")",
      "FileNotFoundError");
}

Status checkWorkingDirectory(const std::string& cwd) {
  struct stat st {};
  if (::stat(cwd.c_str(), &st) != 0) return errnoStatus("working directory '" + cwd + "'", errno);
  if (!S_ISDIR(st.st_mode)) {
    return Status::error("Not a directory: working directory '" + cwd + "'", "NotADirectoryError");
  }
  if (::access(cwd.c_str(), X_OK) != 0) {
    return errnoStatus("working directory '" + cwd + "'", errno);
  }
  return Status::ok();
}

// Cutting inside a UTF-8 sequence would hand consumers invalid text; back off
// to the sequence's lead byte unless that leaves nothing.
std::size_t lineSafeCut(std::string_view text, std::size_t cut) {
  const std::size_t c = sdk::utf8SafeCut(text, cut);
  return c == 0 ? cut : c;
}

}  // namespace abx::sdk::subprocess_detail
