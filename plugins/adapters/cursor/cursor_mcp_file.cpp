// CursorMcpFile: build, merge and write <workdir>/.cursor/mcp.json safely.
#include "cursor_mcp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "abx/sdk/json.h"
#include "json_pretty.h"

namespace abx::plugins::adapters {
namespace {

using sdk::Status;

// A temp name no other turn of this process (or another process) uses at the same time.
std::string tempName(const char* base) {
  static std::atomic<unsigned> counter{0};
  return std::string(base) + ".abx-" + std::to_string(::getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

std::string headerEnvName(std::size_t index, const std::string& header) {
  std::string name = "ABX_MCP_" + std::to_string(index) + "_";
  for (unsigned char c : header) name += std::isalnum(c) ? static_cast<char>(std::toupper(c)) : '_';
  return name;
}

// @p text with its /* */ comments (outside strings) made spaces: cursor's
// files may have them. `//` comments stay, so such a file fails to parse
// and is left alone.
std::string withoutBlockComments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const auto end = text.find("*/", i + 2);
      if (end == std::string_view::npos) return std::string(text);  // unterminated: not JSON
      out += ' ';
      i = end + 1;
    } else {
      in_string = c == '"';
      out += c;
    }
  }
  return out;
}

// The merged mcpServers: the file's servers in their order, one of ours
// replacing a server of the same name at its place, then the rest of ours.
void writeMergedServers(sdk::JsonWriter& w, const sdk::Json& existing, const sdk::Json& ours) {
  w.beginObject();
  for (const auto& [name, value] : existing.members()) {
    const sdk::Json replacement = ours.get(name);
    w.key(name).value(replacement.isMissing() ? value : replacement);
  }
  for (const auto& [name, value] : ours.members())
    if (!existing.has(name)) w.key(name).value(value);
  w.endObject();
}

// A file descriptor closed on scope exit.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

Status errnoError(const std::string& what) {
  return Status::error(what + ": " + std::strerror(errno), "OSError");
}

// The whole content of @p name in @p dir, nullopt-like "" + exists=false when absent.
Status readAt(int dir, const char* name, std::string& text, bool& exists) {
  Fd fd(::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  exists = fd.fd >= 0;
  if (!exists) return errno == ENOENT ? Status::ok() : errnoError(std::string("open ") + name);
  char buf[8192];
  for (ssize_t n; (n = ::read(fd.fd, buf, sizeof buf)) != 0;) {
    if (n < 0) return errnoError(std::string("read ") + name);
    text.append(buf, static_cast<std::size_t>(n));
  }
  return Status::ok();
}

Status writeAllAt(int dir, const char* tmp, const std::string& text, mode_t mode) {
  Fd fd(::openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
  if (fd.fd < 0) return errnoError(std::string("create ") + tmp);
  for (std::size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd.fd, text.data() + done, text.size() - done);
    if (n < 0) return errnoError(std::string("write ") + tmp);
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.fd) != 0) return errnoError(std::string("fsync ") + tmp);
  return Status::ok();
}

// A sub directory of @p parent, created when absent; never a symlink.
int openSubdir(int parent, const char* name, bool create) {
  int fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    if (::mkdirat(parent, name, 0755) != 0 && errno != EEXIST) return -1;
    fd = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  }
  return fd;
}

Status excludeFromGit(int workdir) {
  Fd git(::openat(workdir, ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (git.fd < 0) return Status::ok();  // not a repository root (or .git is a file): nothing to do
  Fd info(openSubdir(git.fd, "info", true));
  if (info.fd < 0) return errnoError("open .git/info");
  std::string text;
  bool exists = false;
  if (auto s = readAt(info.fd, "exclude", text, exists); !s) return s;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line == kCursorMcpExcludeLine) return Status::ok();
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += std::string(kCursorMcpExcludeLine) + "\n";
  const std::string tmp = tempName("exclude");
  if (auto s = writeAllAt(info.fd, tmp.c_str(), text, 0644); !s) {
    ::unlinkat(info.fd, tmp.c_str(), 0);
    return s;
  }
  if (::renameat(info.fd, tmp.c_str(), info.fd, "exclude") != 0) {
    auto s = errnoError("replace .git/info/exclude");
    ::unlinkat(info.fd, tmp.c_str(), 0);
    return s;
  }
  return Status::ok();
}

}  // namespace

CursorMcpServers buildCursorMcpServers(const std::vector<sdk::agents::McpServerSpec>& servers) {
  CursorMcpServers out;
  sdk::JsonWriter w;
  w.beginObject();
  for (std::size_t i = 0; i < servers.size(); ++i) {
    const auto& server = servers[i];
    w.key(server.name).beginObject();
    if (!server.url.empty()) {
      w.member("url", server.url);
      if (!server.headers.empty()) {
        w.key("headers").beginObject();
        for (const auto& header : server.headers) {
          std::string var = headerEnvName(i, header.name);
          w.member(header.name, "${env:" + var + "}");
          out.env.emplace_back(var, header.value);
        }
        w.endObject();
      }
    } else {
      w.member("command", server.command).key("args").beginArray();
      for (const auto& arg : server.args) w.value(arg);
      w.endArray();
    }
    w.endObject();
  }
  // A repeated name (a turn's server after a definition's) is read back as
  // the last one at the first one's place.
  out.servers_json = w.endObject().take();
  return out;
}

sdk::Result<std::string> mergeCursorMcpConfig(const std::string& existing,
                                              const std::string& servers_json) {
  sdk::Json root;
  bool blank = existing.find_first_not_of(" \t\r\n") == std::string::npos;
  if (!blank) {
    auto parsed = sdk::Json::parse(withoutBlockComments(existing));
    if (!parsed)
      return Status::error(".cursor/mcp.json exists but is not valid JSON; not overwriting it (" +
                               parsed.status().message() + ")",
                           "ValueError");
    if (!parsed->isObject())
      return Status::error(".cursor/mcp.json exists but is not a JSON object; not overwriting it",
                           "ValueError");
    root = std::move(parsed).value();
  }
  const sdk::Json servers = root.get("mcpServers");
  if (!servers.isMissing() && !servers.isObject())
    return Status::error(
        ".cursor/mcp.json has an 'mcpServers' that is not an object; not overwriting it",
        "ValueError");
  auto ours = sdk::Json::parse(servers_json);
  if (!ours || !ours->isObject())
    return Status::error("the MCP servers to merge are not a JSON object", "ValueError");
  // Only mcpServers changes; the other keys keep their values and order.
  sdk::JsonWriter w;
  w.beginObject();
  for (const auto& [key, value] : root.members()) {
    if (key == "mcpServers")
      writeMergedServers(w.key(key), servers, *ours);
    else
      w.key(key).value(value);
  }
  if (servers.isMissing()) writeMergedServers(w.key("mcpServers"), servers, *ours);
  auto merged = sdk::Json::parse(w.endObject().take());
  if (!merged) return merged.status();
  return prettyJson(*merged) + "\n";
}

Status writeCursorMcpConfig(const std::string& workdir, const std::string& servers_json) {
  Fd dir(::open(workdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd < 0) return errnoError("open workspace " + workdir);
  Fd cursor(openSubdir(dir.fd, ".cursor", true));
  if (cursor.fd < 0) return errnoError("open " + workdir + "/.cursor (a symlink is refused)");
  std::string existing;
  bool exists = false;
  if (auto s = readAt(cursor.fd, "mcp.json", existing, exists); !s) return s;
  auto merged = mergeCursorMcpConfig(existing, servers_json);
  if (!merged) return merged.status();
  mode_t mode = 0600;
  if (exists) {
    struct stat st {};
    if (::fstatat(cursor.fd, "mcp.json", &st, AT_SYMLINK_NOFOLLOW) == 0) mode = st.st_mode & 0777;
  }
  const std::string tmp = tempName("mcp.json");
  if (auto s = writeAllAt(cursor.fd, tmp.c_str(), *merged, mode); !s) {
    ::unlinkat(cursor.fd, tmp.c_str(), 0);
    return s;
  }
  if (::renameat(cursor.fd, tmp.c_str(), cursor.fd, "mcp.json") != 0) {
    auto s = errnoError("replace .cursor/mcp.json");
    ::unlinkat(cursor.fd, tmp.c_str(), 0);
    return s;
  }
  return excludeFromGit(dir.fd);
}

}  // namespace abx::plugins::adapters
