#include "policy/path_rules_guard.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

namespace abx::kernel {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's MAXSYMLINKS: more is ELOOP
constexpr char kInvalid[] = "invalid_path";
constexpr char kNotAllowed[] = "path_not_allowed";
constexpr char kDenied[] = "path_denied";
constexpr char kReadOnly[] = "read_only";
constexpr char kSymlinkDenied[] = "symlink_denied";

#ifdef O_PATH
constexpr int kDirFlags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
#else
constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
#endif

/** @p path is @p root or below it (both absolute and normalised). */
bool within(std::string_view path, std::string_view root) {
  if (root == "/") return true;
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

/** The non-empty '/'-separated parts of @p path. */
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

/** "." and ".." applied lexically; the result is absolute, no trailing '/'. */
std::string lexicallyNormal(std::string_view absolute) {
  std::vector<std::string> kept;
  for (auto& c : components(absolute)) {
    if (c == ".") continue;
    if (c == "..") {
      if (!kept.empty()) kept.pop_back();
      continue;
    }
    kept.push_back(std::move(c));
  }
  std::string out;
  for (const auto& c : kept) out += "/" + c;
  return out.empty() ? "/" : out;
}

std::string parentOf(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? "/" : std::string(path.substr(0, slash));
}

bool hasGlob(std::string_view s) { return s.find_first_of("*?") != std::string_view::npos; }

// A compiled glob: `*` and `?` stay within one segment, `**` crosses '/',
// "**/" also matches zero segments and a trailing "/**" matches nothing.
// coversPath() runs it as an NFA over the path and accepts at any segment
// boundary, i.e. when the path or one of its ancestors matches.
class Glob {
 public:
  explicit Glob(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size();) {
      if (pattern[i] == '*') {
        std::size_t j = i;
        while (j < pattern.size() && pattern[j] == '*') ++j;
        tokens_.push_back({j - i >= 2 ? Kind::globstar : Kind::star, 0});
        i = j;
      } else {
        tokens_.push_back({pattern[i] == '?' ? Kind::one : Kind::literal, pattern[i]});
        ++i;
      }
    }
  }

  bool coversPath(std::string_view path) const {
    const std::size_t end = tokens_.size();
    // Per state: 0 off, kLooped (stayed on a star), kEntered (just reached).
    std::vector<char> now(end + 1, 0), next(end + 1, 0);
    now[0] = kEntered;
    closure(now);
    for (std::size_t si = 0;; ++si) {
      if (now[end] && si > 0 && (si == path.size() || path[si] == '/' || si == 1)) return true;
      if (si == path.size()) return false;
      std::fill(next.begin(), next.end(), 0);
      bool any = false;
      const char ch = path[si];
      for (std::size_t t = 0; t < end; ++t) {
        if (!now[t]) continue;
        const Token& tok = tokens_[t];
        std::size_t to = end + 1;  // none
        switch (tok.kind) {
          case Kind::literal:
            if (ch == tok.ch) to = t + 1;
            break;
          case Kind::one:
            if (ch != '/') to = t + 1;
            break;
          case Kind::star:
            if (ch != '/') next[t] = std::max<char>(next[t], kLooped), any = true;
            break;
          case Kind::globstar:
            next[t] = std::max<char>(next[t], kLooped), any = true;
            break;
        }
        if (to <= end) next[to] = kEntered, any = true;
      }
      if (!any) return false;
      closure(next);
      now.swap(next);
    }
  }

 private:
  enum class Kind { literal, one, star, globstar };
  static constexpr char kLooped = 1, kEntered = 2;
  struct Token {
    Kind kind;
    char ch;
  };

  bool isSlash(std::size_t t) const {
    return t < tokens_.size() && tokens_[t].kind == Kind::literal && tokens_[t].ch == '/';
  }

  /** Adds the states reachable without consuming a character (in order). */
  void closure(std::vector<char>& set) const {
    const std::size_t end = tokens_.size();
    for (std::size_t t = 0; t < end; ++t) {
      if (!set[t]) continue;
      const Kind kind = tokens_[t].kind;
      if (kind == Kind::star || kind == Kind::globstar) set[t + 1] = kEntered;
      // "**/" at the start or right after '/' also matches zero segments
      // (only on entry: after ** consumed something the '/' is required).
      if (kind == Kind::globstar && set[t] == kEntered && (t == 0 || isSlash(t - 1)) &&
          isSlash(t + 1))
        set[t + 2] = kEntered;
      // a trailing "/**" also matches the directory itself.
      if (isSlash(t) && t + 2 == end && tokens_[t + 1].kind == Kind::globstar) set[end] = kEntered;
    }
  }

  std::vector<Token> tokens_;
};

/** One allow / deny / read_only entry: a directory prefix or a glob. */
struct Entry {
  std::string prefix;  // normalised absolute path, when not a glob
  std::optional<Glob> glob;

  bool covers(std::string_view path) const {
    return glob ? glob->coversPath(path) : within(path, prefix);
  }
};

/** The rules compiled against one base dir. */
class Area {
 public:
  Area(const std::string& base_dir, const sdk::PathRules& rules)
      : base_(lexicallyNormal(base_dir.empty() ? std::string("/") : base_dir)),
        allow_(compile(rules.allow)),
        deny_(compile(rules.deny)),
        read_only_(compile(rules.read_only)),
        deny_symlinks_(rules.symlinks == "deny") {}

  const std::string& base() const { return base_; }
  bool denySymlinks() const { return deny_symlinks_; }

  /** Why @p path is outside the area (a code), or "" when it is inside. */
  const char* boundary(std::string_view path) const {
    for (const char* forbidden : {"/proc", "/sys", "/dev"})
      if (within(path, forbidden)) return kDenied;
    if (path == "/" || !allowed(path)) return kNotAllowed;
    if (coveredBy(deny_, path)) return kDenied;
    return "";
  }

  /** The full verdict on a resolved @p path: a code, or "" when allowed. */
  const char* judge(std::string_view path, sdk::PathOp op) const {
    const char* code = boundary(path);
    if (*code) return code;
    const bool writes = op == sdk::PathOp::write || op == sdk::PathOp::remove;
    if (writes && coveredBy(read_only_, path)) return kReadOnly;
    // The root of the allowed area (its parent is outside) is never removed.
    if (op == sdk::PathOp::remove && !allowed(parentOf(path))) return kNotAllowed;
    return "";
  }

 private:
  bool allowed(std::string_view path) const {
    return allow_.empty() ? within(path, base_) : coveredBy(allow_, path);
  }

  static bool coveredBy(const std::vector<Entry>& entries, std::string_view path) {
    for (const auto& e : entries)
      if (e.covers(path)) return true;
    return false;
  }

  /** Relative entries are relative to the base dir, except globs starting with "**". */
  std::vector<Entry> compile(const std::vector<std::string>& texts) const {
    std::vector<Entry> out;
    for (const auto& text : texts) {
      if (text.empty()) continue;
      const bool glob = hasGlob(text);
      std::string abs = text;
      if (abs[0] != '/' && !(glob && abs.starts_with("**"))) abs = base_ + "/" + abs;
      Entry e;
      if (glob) {
        while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
        e.glob.emplace(abs);
      } else {
        e.prefix = lexicallyNormal(abs);
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  std::string base_;
  std::vector<Entry> allow_, deny_, read_only_;
  bool deny_symlinks_;
};

/** The target of the symlink at @p path, or "" when it cannot be read. */
std::string readLink(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n <= 0 || n >= static_cast<ssize_t>(sizeof buf)) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

struct Resolution {
  std::string path;       // when code is empty
  const char* code = "";  // a denial met while resolving
};

/**
 * Walks @p path component by component like the kernel: "." and ".." on the
 * resolved prefix, symlinks expanded (at most kMaxSymlinks). Only candidates
 * inside the area are lstat'ed; outside ones, and everything that does not
 * exist, are taken lexically, so nothing outside leaks into the verdict.
 * Without @p touch_fs everything is lexical.
 */
Resolution resolve(const Area& area, std::string_view path, sdk::PathOp op, bool touch_fs) {
  std::deque<std::string> pending;
  for (auto& c : components(path)) pending.push_back(std::move(c));
  if (!path.starts_with('/'))
    for (auto it = components(area.base()); !it.empty(); it.pop_back())
      pending.push_front(std::move(it.back()));

  std::string cur;  // the resolved prefix: "" (the root) or "/a/b"
  int links = 0;
  while (!pending.empty()) {
    std::string c = std::move(pending.front());
    pending.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      cur.resize(cur.rfind('/') == std::string::npos ? 0 : cur.rfind('/'));
      continue;
    }
    std::string candidate = cur + "/" + c;
    if (candidate.size() >= PATH_MAX) return {{}, kNotAllowed};  // ENAMETOOLONG
    struct stat st;
    const bool symlink = touch_fs && !*area.boundary(candidate) &&
                         ::lstat(candidate.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
    // Like unlink(2), remove acts on a final symlink itself.
    if (!symlink || (!area.denySymlinks() && pending.empty() && op == sdk::PathOp::remove)) {
      cur = std::move(candidate);
      continue;
    }
    if (area.denySymlinks()) return {{}, kSymlinkDenied};
    if (++links > kMaxSymlinks) return {{}, kNotAllowed};  // ELOOP
    std::string target = readLink(candidate);
    if (target.empty()) {  // replaced since the lstat: judged where it is
      cur = std::move(candidate);
      continue;
    }
    if (target.starts_with('/')) cur.clear();
    for (auto parts = components(target); !parts.empty(); parts.pop_back())
      pending.push_front(std::move(parts.back()));
  }
  return {cur.empty() ? "/" : cur, ""};
}

sdk::PathCheck denial(const char* code, std::string_view path) {
  sdk::PathCheck check;
  check.code = code;
  check.status = 403;
  std::string_view prefix = "Path not allowed: ";
  if (check.code == kInvalid) {
    check.status = 400;
    check.message = "Invalid path";
    return check;
  }
  if (check.code == kDenied) prefix = "Path denied: ";
  if (check.code == kReadOnly) prefix = "Path is read-only: ";
  if (check.code == kSymlinkDenied) prefix = "Symbolic links are not allowed: ";
  check.message = std::string(prefix) + std::string(path);
  return check;
}

/** The Status for openat() failing with @p err on @p name in @p dir. */
sdk::Status openFailure(int dir, const std::string& name, int err, std::string_view path) {
  struct stat st;
  if (err == ELOOP ||
      (err == ENOTDIR && ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
       S_ISLNK(st.st_mode)))
    return sdk::Status::error(kSymlinkDenied, "PermissionError");
  if (err == ENOENT)
    return sdk::Status::error("No such file or directory: " + std::string(path),
                              "FileNotFoundError");
  return sdk::Status::error(std::generic_category().message(err) + ": " + std::string(path),
                            "OSError");
}

sdk::PathCheck judgePath(const std::string& base_dir, const sdk::PathRules& rules,
                         std::string_view path, sdk::PathOp op, bool touch_fs) {
  if (path.empty() || path.size() >= PATH_MAX || path.find('\0') != std::string_view::npos)
    return denial(kInvalid, path);
  Area area(base_dir, rules);
  Resolution r = resolve(area, path, op, touch_fs);
  const char* code = *r.code ? r.code : area.judge(r.path, op);
  if (*code) return denial(code, path);
  sdk::PathCheck ok;
  ok.allowed = true;
  ok.status = 200;
  ok.resolved = std::move(r.path);
  return ok;
}

}  // namespace

sdk::PathCheck checkPath(const std::string& base_dir, const sdk::PathRules& rules,
                         std::string_view path, sdk::PathOp op) {
  return judgePath(base_dir, rules, path, op, true);
}

sdk::PathCheck checkPathLexically(const std::string& base_dir, const sdk::PathRules& rules,
                                  std::string_view path, sdk::PathOp op) {
  return judgePath(base_dir, rules, path, op, false);
}

sdk::Result<int> openChecked(const sdk::PathCheck& verdict, std::string_view path, int flags,
                             int mode) {
  if (!verdict.allowed)
    return sdk::Status::error(verdict.code,
                              verdict.status == 400 ? "ValueError" : "PermissionError");
  auto parts = components(verdict.resolved);
  if (parts.empty()) return sdk::Status::error(kNotAllowed, "PermissionError");
  int dir = ::open("/", kDirFlags);
  if (dir < 0) return openFailure(-1, "/", errno, path);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    int next = ::openat(dir, parts[i].c_str(), kDirFlags);
    if (next < 0) {
      auto failure = openFailure(dir, parts[i], errno, path);
      ::close(dir);
      return failure;
    }
    ::close(dir);
    dir = next;
  }
  int fd = ::openat(dir, parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    auto failure = openFailure(dir, parts.back(), errno, path);
    ::close(dir);
    return failure;
  }
  ::close(dir);
  return fd;
}

sdk::Result<int> openPath(const std::string& base_dir, const sdk::PathRules& rules,
                          std::string_view path, sdk::PathOp op, int flags, int mode) {
  return openChecked(checkPath(base_dir, rules, path, op), path, flags, mode);
}

}  // namespace abx::kernel
