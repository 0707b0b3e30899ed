// sdk::identifyProgramFile (see abx/sdk/program_identity.h).
#include "abx/sdk/program_identity.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace abx::sdk {
namespace {

constexpr int kMaxLinks = 40;               // the kernel's MAXSYMLINKS
constexpr std::size_t kShebangBytes = 256;  // BINPRM_BUF_SIZE

std::string parentOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

/** "." and ".." applied to an absolute path without touching the filesystem. */
std::string lexicallyNormal(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

std::optional<std::string> realPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

// A link a caller could not have made: root's, in a root-owned directory
// that group and others cannot write. A server running as root could have
// made anything, so then the directory must also be a system one.
bool isSystemLink(const std::string& link, const struct stat& st) {
  if (st.st_uid != 0) return false;
  const std::string dir = parentOf(link);
  struct stat dir_st {};
  if (::stat(dir.c_str(), &dir_st) != 0 || dir_st.st_uid != 0 ||
      (dir_st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return false;
  if (::geteuid() != 0) return true;
  auto real_dir = realPath(dir);
  return real_dir && (real_dir->starts_with("/usr/") || *real_dir == "/etc/alternatives");
}

/** False as soon as one link from @p path on is not a system link. */
bool linksAreSystem(std::string path) {
  for (int i = 0; i < kMaxLinks; ++i) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return true;
    if (!isSystemLink(path, st)) return false;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return false;
    const std::string target(buf, static_cast<std::size_t>(n));
    path = lexicallyNormal(target.front() == '/' ? target : parentOf(path) + "/" + target);
  }
  return false;
}

std::string readHead(const std::string& path, bool& readable) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  readable = fd >= 0;
  if (fd < 0) return {};
  std::string head(kShebangBytes, '\0');
  const ssize_t n = ::read(fd, head.data(), head.size());
  ::close(fd);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return head;
}

}  // namespace

std::vector<std::string> shebangInterpreter(std::string_view head) {
  if (!head.starts_with("#!")) return {};
  std::string_view line = head.substr(
      2, head.find('\n') == std::string_view::npos ? std::string_view::npos : head.find('\n') - 2);
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  while (!line.empty() && (blank(line.back()) || line.back() == '\r')) line.remove_suffix(1);
  if (line.empty()) return {};
  std::size_t end = 0;
  while (end < line.size() && !blank(line[end])) ++end;
  std::vector<std::string> out{std::string(line.substr(0, end))};
  std::string_view rest = line.substr(end);
  while (!rest.empty() && blank(rest.front())) rest.remove_prefix(1);
  if (!rest.empty()) out.emplace_back(rest);
  return out;
}

ProgramIdentity identifyProgramFile(const std::string& path) {
  ProgramIdentity id;
  id.path = path;
  id.real = realPath(*id.path);
  if (!id.real) return id;
  id.system_links = linksAreSystem(*id.path);
  struct stat st {};
  if (::stat(id.real->c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
      ::access(id.real->c_str(), X_OK) != 0)
    return id;
  bool readable = false;
  const std::string head = readHead(*id.real, readable);
  if (!readable || head.starts_with("\x7f"
                                    "ELF")) {
    id.kind = ProgramKind::binary;
  } else {
    id.interpreter = shebangInterpreter(head);
    id.kind = id.interpreter.empty() ? ProgramKind::other : ProgramKind::script;
  }
  return id;
}

}  // namespace abx::sdk
