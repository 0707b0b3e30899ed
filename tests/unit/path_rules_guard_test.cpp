// checkPath / openPath tests on real temp directories: the traversal attack
// list (.. escapes, absolute paths outside, symlinks out as final and
// intermediate components, /proc /sys /dev, dangling links, loops, "/", the
// base dir removed), symlinks follow vs deny, files and directories swapped
// for symlinks between the check and the open, no-existence-oracle pairs,
// allow/deny/read_only prefix and glob rules, and BaseDirPathGuard delegating.
#include "policy/path_rules_guard.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "policy/base_dir_path_guard.h"

namespace {

namespace fs = std::filesystem;
using abx::kernel::BaseDirPathGuard;
using abx::kernel::checkPath;
using abx::kernel::openChecked;
using abx::kernel::openPath;
using abx::sdk::PathCheck;
using abx::sdk::PathOp;
using abx::sdk::PathRules;
using ::testing::HasSubstr;
using ::testing::Not;

void writeFile(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string readFd(int fd) {
  std::string out;
  char buf[256];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

/**
 * root/ (a realpath'd temp dir)
 *   base/  file.txt  sub/inner.txt  .git/config  ro/data.txt  data/a.txt  pub/
 *          link_in -> sub            link_in_file -> sub/inner.txt
 *          link_out -> ../outside    link_out_file -> ../outside/secret.txt
 *          link_etc -> /etc          link_proc -> /proc
 *          dangling_in -> not_yet    dangling_out -> ../outside/nothing
 *          loop_a -> loop_b -> loop_a
 *   outside/  secret.txt  link_back -> ../base/file.txt
 */
class PathRulesGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx_path_guard_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(::realpath(tmpl, real), nullptr);
    root_ = real;
    base_ = root_ + "/base";
    out_ = root_ + "/outside";
    for (const char* d : {"sub", ".git", "ro", "data", "pub"})
      fs::create_directories(base_ + "/" + d);
    fs::create_directories(out_);
    writeFile(base_ + "/file.txt", "inside");
    writeFile(base_ + "/sub/inner.txt", "inner");
    writeFile(base_ + "/.git/config", "[core]");
    writeFile(base_ + "/ro/data.txt", "ro");
    writeFile(base_ + "/data/a.txt", "a");
    writeFile(out_ + "/secret.txt", "secret");
    link("sub", "link_in");
    link("sub/inner.txt", "link_in_file");
    link("../outside", "link_out");
    link("../outside/secret.txt", "link_out_file");
    link("/etc", "link_etc");
    link("/proc", "link_proc");
    link("not_yet", "dangling_in");
    link("../outside/nothing", "dangling_out");
    link("loop_b", "loop_a");
    link("loop_a", "loop_b");
    fs::create_symlink("../base/file.txt", out_ + "/link_back");
  }
  void TearDown() override { fs::remove_all(root_); }

  void link(const std::string& target, const std::string& name) {
    fs::create_symlink(target, base_ + "/" + name);
  }

  /** $B -> base, $O -> outside, $R -> root. */
  std::string expand(std::string s) const {
    const std::vector<std::pair<std::string, std::string>> vars = {
        {"$B", base_}, {"$O", out_}, {"$R", root_}};
    for (const auto& [key, value] : vars)
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), value);
    return s;
  }

  PathRules rules(std::vector<std::string> allow = {}, std::vector<std::string> deny = {},
                  std::vector<std::string> read_only = {}, std::string symlinks = "follow") const {
    PathRules r;
    for (auto& a : allow) r.allow.push_back(expand(a));
    for (auto& d : deny) r.deny.push_back(expand(d));
    for (auto& w : read_only) r.read_only.push_back(expand(w));
    r.symlinks = std::move(symlinks);
    return r;
  }

  PathCheck check(std::string_view path, PathOp op = PathOp::read,
                  const PathRules& r = PathRules{}) const {
    return checkPath(base_, r, path, op);
  }

  std::string root_, base_, out_;
};

const char* opName(PathOp op) {
  switch (op) {
    case PathOp::read:
      return "read";
    case PathOp::write:
      return "write";
    case PathOp::remove:
      return "remove";
    case PathOp::list:
      return "list";
  }
  return "?";
}

struct Case {
  std::string path;
  PathOp op;
  std::string code;      // "" when allowed
  std::string resolved;  // checked when allowed and non-empty
};

// ---- the attack list, default rules (allow = base dir, follow symlinks) ----

TEST_F(PathRulesGuardTest, DefaultRulesAttackTable) {
  const std::vector<Case> cases = {
      // .. escapes, relative and absolute
      {"../../etc/passwd", PathOp::read, "path_not_allowed", ""},
      {"../outside/secret.txt", PathOp::read, "path_not_allowed", ""},
      {"sub/../../outside/secret.txt", PathOp::read, "path_not_allowed", ""},
      {"/home/x/../../etc", PathOp::read, "path_not_allowed", ""},
      {"$B/../../etc/passwd", PathOp::read, "path_not_allowed", ""},
      {"not_yet/../../outside/secret.txt", PathOp::read, "path_not_allowed", ""},
      {"$B/../base/file.txt", PathOp::read, "", "$B/file.txt"},
      // absolute paths outside
      {"/etc/passwd", PathOp::read, "path_not_allowed", ""},
      {"$O/secret.txt", PathOp::read, "path_not_allowed", ""},
      {"$R", PathOp::list, "path_not_allowed", ""},
      // symlinks out, final and intermediate
      {"link_out_file", PathOp::read, "path_not_allowed", ""},
      {"link_out/secret.txt", PathOp::read, "path_not_allowed", ""},
      {"link_out", PathOp::list, "path_not_allowed", ""},
      {"link_etc/passwd", PathOp::read, "path_not_allowed", ""},
      {"link_out/../base/file.txt", PathOp::read, "", "$B/file.txt"},
      // a symlink outside is never followed, even back inside
      {"$O/link_back", PathOp::read, "path_not_allowed", ""},
      // symlinks inside pointing inside
      {"link_in/inner.txt", PathOp::read, "", "$B/sub/inner.txt"},
      {"link_in_file", PathOp::read, "", "$B/sub/inner.txt"},
      {"link_in/../file.txt", PathOp::read, "", "$B/file.txt"},
      // /proc /sys /dev, directly and through a symlink
      {"/proc/self/environ", PathOp::read, "path_denied", ""},
      {"/proc", PathOp::list, "path_denied", ""},
      {"link_proc/self/environ", PathOp::read, "path_denied", ""},
      {"link_proc", PathOp::list, "path_denied", ""},
      {"/dev/null", PathOp::write, "path_denied", ""},
      {"/sys", PathOp::list, "path_denied", ""},
      {"/sys/kernel/../../proc/1/environ", PathOp::read, "path_denied", ""},
      // dangling symlinks: the target path is judged
      {"dangling_in", PathOp::write, "", "$B/not_yet"},
      {"dangling_out", PathOp::write, "path_not_allowed", ""},
      // loops (ELOOP)
      {"loop_a", PathOp::read, "path_not_allowed", ""},
      {"loop_a/x", PathOp::write, "path_not_allowed", ""},
      // the root, and the base dir itself
      {"/", PathOp::list, "path_not_allowed", ""},
      {"/..", PathOp::list, "path_not_allowed", ""},
      {"$B", PathOp::list, "", "$B"},
      {"$B", PathOp::read, "", "$B"},
      {"$B", PathOp::remove, "path_not_allowed", ""},
      {".", PathOp::remove, "path_not_allowed", ""},
      {"sub/..", PathOp::remove, "path_not_allowed", ""},
      {"$B/", PathOp::remove, "path_not_allowed", ""},
      // ordinary paths, relative and absolute, existing or to be created
      {"file.txt", PathOp::read, "", "$B/file.txt"},
      {"./sub//inner.txt", PathOp::read, "", "$B/sub/inner.txt"},
      {"$B/sub/inner.txt", PathOp::remove, "", "$B/sub/inner.txt"},
      {"new/dir/file.txt", PathOp::write, "", "$B/new/dir/file.txt"},
      {"new/../file.txt", PathOp::read, "", "$B/file.txt"},
      {"sub", PathOp::remove, "", "$B/sub"},
      // remove acts on a final symlink itself, not its target
      {"link_in_file", PathOp::remove, "", "$B/link_in_file"},
      {"link_out_file", PathOp::remove, "", "$B/link_out_file"},
      {"dangling_out", PathOp::remove, "", "$B/dangling_out"},
      {"link_out/secret.txt", PathOp::remove, "path_not_allowed", ""},
  };
  for (const auto& c : cases) {
    const std::string path = expand(c.path);
    SCOPED_TRACE(path + " op=" + opName(c.op));
    PathCheck v = check(path, c.op);
    if (c.code.empty()) {
      EXPECT_TRUE(v.allowed) << v.code;
      if (!c.resolved.empty()) {
        EXPECT_EQ(v.resolved, expand(c.resolved));
      }
      continue;
    }
    EXPECT_FALSE(v.allowed) << v.resolved;
    EXPECT_EQ(v.status, 403);
    EXPECT_EQ(v.code, c.code);
    EXPECT_TRUE(v.resolved.empty());
    // The message names the path as given, never a resolved path or target.
    EXPECT_EQ(v.message, (c.code == "path_denied" ? "Path denied: " : "Path not allowed: ") + path);
  }
}

TEST_F(PathRulesGuardTest, MessagesPerCode) {
  EXPECT_EQ(check("../x").message, "Path not allowed: ../x");
  EXPECT_EQ(check("/dev/null").message, "Path denied: /dev/null");
  EXPECT_EQ(check("link_out_file").message, "Path not allowed: link_out_file");
  EXPECT_EQ(check("ro/data.txt", PathOp::write, rules({}, {}, {"$B/ro"})).message,
            "Path is read-only: ro/data.txt");
  EXPECT_EQ(check("link_in", PathOp::list, rules({}, {}, {}, "deny")).message,
            "Symbolic links are not allowed: link_in");
}

TEST_F(PathRulesGuardTest, InvalidPaths) {
  for (std::string_view bad : {std::string_view(""), std::string_view("a\0b", 3),
                               std::string_view("\0", 1), std::string_view("file.txt\0", 9)}) {
    PathCheck v = check(bad);
    EXPECT_FALSE(v.allowed);
    EXPECT_EQ(v.status, 400);
    EXPECT_EQ(v.code, "invalid_path");
    EXPECT_EQ(v.message, "Invalid path");
  }
  EXPECT_EQ(check(std::string(PATH_MAX, 'a')).code, "invalid_path");
}

TEST_F(PathRulesGuardTest, RelativePathsAreRelativeToBaseDir) {
  EXPECT_EQ(check("file.txt").resolved, base_ + "/file.txt");
  EXPECT_EQ(check("sub/inner.txt").resolved, base_ + "/sub/inner.txt");
  EXPECT_EQ(check("sub/").resolved, base_ + "/sub");
  EXPECT_EQ(check("etc/passwd").resolved, base_ + "/etc/passwd");
}

// ---- symlinks: deny ----

TEST_F(PathRulesGuardTest, SymlinksDenyTable) {
  const PathRules deny = rules({}, {}, {}, "deny");
  const std::vector<Case> cases = {
      {"link_in/inner.txt", PathOp::read, "symlink_denied", ""},
      {"link_in_file", PathOp::read, "symlink_denied", ""},
      {"link_in_file", PathOp::remove, "symlink_denied", ""},
      {"link_out_file", PathOp::read, "symlink_denied", ""},
      {"link_proc/self/environ", PathOp::read, "symlink_denied", ""},
      {"dangling_in", PathOp::write, "symlink_denied", ""},
      {"loop_a", PathOp::read, "symlink_denied", ""},
      // a symlink whose own location is outside: no probing there
      {"$O/link_back", PathOp::read, "path_not_allowed", ""},
      {"$O/nothing", PathOp::read, "path_not_allowed", ""},
      {"/proc/self/environ", PathOp::read, "path_denied", ""},
      {"file.txt", PathOp::read, "", "$B/file.txt"},
      {"sub/inner.txt", PathOp::write, "", "$B/sub/inner.txt"},
      {"new.txt", PathOp::write, "", "$B/new.txt"},
  };
  for (const auto& c : cases) {
    const std::string path = expand(c.path);
    SCOPED_TRACE(path + " op=" + opName(c.op));
    PathCheck v = check(path, c.op, deny);
    EXPECT_EQ(v.allowed, c.code.empty());
    EXPECT_EQ(v.code, c.code);
    if (!c.resolved.empty()) {
      EXPECT_EQ(v.resolved, expand(c.resolved));
    }
  }
}

TEST_F(PathRulesGuardTest, SymlinkInDeniedAreaIsNotReportedAsSymlink) {
  link("../file.txt", ".git/hook_link");
  PathCheck v = check(".git/hook_link", PathOp::read, rules({}, {"**/.git/**"}, {}, "deny"));
  EXPECT_EQ(v.code, "path_denied");
}

// ---- no existence oracle ----

TEST_F(PathRulesGuardTest, NoExistenceOracleOutside) {
  // One path string, many states of the filesystem outside: one verdict.
  for (const char* path :
       {"$O/probe", "$O/probe/x", "link_out/probe", "$O/probe/../../base/file.txt",
        "$R/base/../outside/probe", "/etc/../$O/probe"}) {
    const std::string p = expand(path);
    SCOPED_TRACE(p);
    std::vector<PathCheck> first;
    for (int state = 0; state < 6; ++state) {
      fs::remove_all(out_ + "/probe");
      if (state == 1) writeFile(out_ + "/probe", "x");
      if (state == 2) fs::create_directories(out_ + "/probe/x");
      if (state == 3) fs::create_symlink(base_ + "/file.txt", out_ + "/probe");
      if (state == 4) fs::create_symlink(root_ + "/nothing/here", out_ + "/probe");
      if (state == 5) fs::create_symlink("/usr/lib", out_ + "/probe");
      std::vector<PathCheck> now;
      for (const auto& r : {PathRules{}, rules({}, {}, {}, "deny")})
        for (PathOp op : {PathOp::read, PathOp::write, PathOp::remove, PathOp::list})
          now.push_back(checkPath(base_, r, p, op));
      if (state == 0) {
        first = now;
        continue;
      }
      for (size_t i = 0; i < now.size(); ++i) {
        SCOPED_TRACE("state " + std::to_string(state) + " variant " + std::to_string(i));
        EXPECT_EQ(now[i].allowed, first[i].allowed);
        EXPECT_EQ(now[i].status, first[i].status);
        EXPECT_EQ(now[i].code, first[i].code);
        EXPECT_EQ(now[i].message, first[i].message);
        EXPECT_EQ(now[i].resolved, first[i].resolved);
      }
    }
  }
}

TEST_F(PathRulesGuardTest, NoExistenceOraclePairs) {
  // existing vs missing outside: same status, code, message shape.
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"$O/secret.txt", "$O/missing.txt"},
      {"/etc/passwd", "/etc/no_such_file_abx"},
      {"../outside/secret.txt", "../outside/missing.txt"},
      {"link_out/secret.txt", "link_out/missing.txt"},
      {"link_out_file", "dangling_out"},
      {"/proc/self/environ", "/proc/self/no_such_abx"},
  };
  for (const auto& [existing, missing] : pairs) {
    SCOPED_TRACE(existing + " vs " + missing);
    PathCheck a = check(expand(existing)), b = check(expand(missing));
    EXPECT_FALSE(a.allowed);
    EXPECT_EQ(a.allowed, b.allowed);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.code, b.code);
    EXPECT_EQ(a.resolved, b.resolved);
    EXPECT_EQ(a.message.substr(0, a.message.find(':')), b.message.substr(0, b.message.find(':')));
  }
}

// ---- allow / deny / read_only ----

struct RuleCase {
  std::vector<std::string> allow, deny, read_only;
  std::string path;
  PathOp op;
  std::string code;
};

TEST_F(PathRulesGuardTest, RulesTable) {
  const std::vector<RuleCase> cases = {
      // prefix entries: a directory boundary, not a string prefix
      {{"$B/pub"}, {}, {}, "$B/pub", PathOp::list, ""},
      {{"$B/pub"}, {}, {}, "$B/pub/x/y", PathOp::write, ""},
      {{"$B/pub"}, {}, {}, "$B/public", PathOp::read, "path_not_allowed"},
      {{"$B/pub"}, {}, {}, "$B/file.txt", PathOp::read, "path_not_allowed"},
      {{"$B/pub/"}, {}, {}, "$B/pub/x", PathOp::read, ""},
      {{"$B/pub"}, {}, {}, "$B/pub", PathOp::remove, "path_not_allowed"},
      {{"$B/pub"}, {}, {}, "$B/pub/x", PathOp::remove, ""},
      {{"$B/pub"}, {}, {}, "$B/pub/../file.txt", PathOp::read, "path_not_allowed"},
      {{"pub"}, {}, {}, "pub/x", PathOp::write, ""},  // relative entry: under base
      {{"pub"}, {}, {}, "sub/x", PathOp::write, "path_not_allowed"},
      {{"$B/pub", "$B/data"}, {}, {}, "$B/data/a.txt", PathOp::read, ""},
      // allow replaces the base dir
      {{"$O"}, {}, {}, "$O/secret.txt", PathOp::read, ""},
      {{"$O"}, {}, {}, "file.txt", PathOp::read, "path_not_allowed"},
      // /proc, /sys, /dev and "/" whatever allow says
      {{"/proc", "$B"}, {}, {}, "/proc/self/status", PathOp::read, "path_denied"},
      {{"/"}, {}, {}, "/dev/null", PathOp::read, "path_denied"},
      {{"/"}, {}, {}, "/", PathOp::list, "path_not_allowed"},
      {{"/"}, {}, {}, "/etc/hostname", PathOp::read, ""},
      // globs: * and ? within one segment, the path or an ancestor matching
      {{"$B/data/*.txt"}, {}, {}, "$B/data/a.txt", PathOp::read, ""},
      {{"$B/data/*.txt"}, {}, {}, "$B/data/b.txt", PathOp::write, ""},
      {{"$B/data/*.txt"}, {}, {}, "$B/data/a.txt/inner", PathOp::write, ""},
      {{"$B/data/*.txt"}, {}, {}, "$B/data/a.bin", PathOp::read, "path_not_allowed"},
      {{"$B/data/*.txt"}, {}, {}, "$B/data/x/a.txt", PathOp::read, "path_not_allowed"},
      {{"$B/data/*.txt"}, {}, {}, "$B/data/a.txt.bak", PathOp::read, "path_not_allowed"},
      {{"$B/data/*.txt"}, {}, {}, "$B/data", PathOp::list, "path_not_allowed"},
      {{"$B/d?ta"}, {}, {}, "$B/data/a.txt", PathOp::read, ""},
      {{"$B/d?ta"}, {}, {}, "$B/dta", PathOp::read, "path_not_allowed"},
      {{"$B/*"}, {}, {}, "$B/sub/inner.txt", PathOp::read, ""},
      {{"$B/*/inner.txt"}, {}, {}, "$B/sub/inner.txt", PathOp::read, ""},
      {{"$B/*/inner.txt"}, {}, {}, "$B/sub/x/inner.txt", PathOp::read, "path_not_allowed"},
      // ** crosses '/', including zero segments
      {{"$B/**/inner.txt"}, {}, {}, "$B/sub/inner.txt", PathOp::read, ""},
      {{"$B/**/inner.txt"}, {}, {}, "$B/inner.txt", PathOp::write, ""},
      {{"$B/**/inner.txt"}, {}, {}, "$B/a/b/c/inner.txt", PathOp::write, ""},
      {{"$B/**/inner.txt"}, {}, {}, "$B/a/b/c/outer.txt", PathOp::write, "path_not_allowed"},
      {{"$B/**/inner.txt"}, {}, {}, "$B/xinner.txt", PathOp::write, "path_not_allowed"},
      {{"$B/**/inner.txt"}, {}, {}, "$B/x/xinner.txt", PathOp::write, "path_not_allowed"},
      {{"$B/a**"}, {}, {}, "$B/ab/c", PathOp::write, ""},
      {{"$B/a**"}, {}, {}, "$B/b/a", PathOp::write, "path_not_allowed"},
      {{"$B/**"}, {}, {}, "$B/a/b", PathOp::write, ""},
      {{"$B/**"}, {}, {}, "$B", PathOp::list, ""},
      // deny, checked after allow
      {{}, {"**/.git/**"}, {}, "$B/.git/config", PathOp::read, "path_denied"},
      {{}, {"**/.git/**"}, {}, "$B/.git", PathOp::list, "path_denied"},
      {{}, {"**/.git/**"}, {}, "$B/sub/deep/.git/HEAD", PathOp::write, "path_denied"},
      {{}, {"**/.git/**"}, {}, "$B/.gitignore", PathOp::write, ""},
      {{}, {"**/.git/**"}, {}, "$B/x.git/y", PathOp::write, ""},
      {{}, {"**/.git/**"}, {}, "$B/sub/.git2/y", PathOp::write, ""},
      {{"/home/user"}, {"**/.git/**"}, {}, "/home/user/r/.git/config", PathOp::read, "path_denied"},
      {{"/home/user"}, {"**/.git/**"}, {}, "/home/user/.git/x", PathOp::read, "path_denied"},
      {{"/home/user"}, {"**/.git/**"}, {}, "/home/user/r/git/x", PathOp::read, ""},
      {{}, {"$B/sub"}, {}, "$B/sub/inner.txt", PathOp::read, "path_denied"},
      {{}, {"$B/sub"}, {}, "link_in_file", PathOp::read, "path_denied"},
      {{}, {"$B/sub"}, {}, "$B/subway", PathOp::read, ""},
      {{}, {"*.txt"}, {}, "$B/file.txt", PathOp::read, "path_denied"},  // relative glob: under base
      {{}, {"*.txt"}, {}, "$B/sub/inner.txt", PathOp::read, ""},
      {{}, {"**/*.txt"}, {}, "$B/sub/inner.txt", PathOp::read, "path_denied"},
      {{"$O"}, {"$O/secret.txt"}, {}, "$O/secret.txt", PathOp::read, "path_denied"},
      // read_only: writes and removes refused, reads and lists fine
      {{}, {}, {"$B/ro"}, "$B/ro/data.txt", PathOp::read, ""},
      {{}, {}, {"$B/ro"}, "$B/ro", PathOp::list, ""},
      {{}, {}, {"$B/ro"}, "$B/ro/data.txt", PathOp::write, "read_only"},
      {{}, {}, {"$B/ro"}, "$B/ro/new.txt", PathOp::write, "read_only"},
      {{}, {}, {"$B/ro"}, "$B/ro/data.txt", PathOp::remove, "read_only"},
      {{}, {}, {"$B/ro"}, "$B/ro", PathOp::remove, "read_only"},
      {{}, {}, {"$B/ro"}, "$B/rox", PathOp::write, ""},
      {{}, {}, {"**/*.lock"}, "$B/a.lock", PathOp::write, "read_only"},
      {{}, {}, {"**/*.lock"}, "$B/sub/b.lock", PathOp::remove, "read_only"},
      {{}, {}, {"**/*.lock"}, "$B/sub/b.lock", PathOp::read, ""},
      {{}, {"$B/ro"}, {"$B/ro"}, "$B/ro/data.txt", PathOp::write, "path_denied"},
  };
  for (const auto& c : cases) {
    const std::string path = expand(c.path);
    SCOPED_TRACE(path + " op=" + opName(c.op) +
                 (c.allow.empty() ? "" : " allow=" + expand(c.allow[0])) +
                 (c.deny.empty() ? "" : " deny=" + c.deny[0]) +
                 (c.read_only.empty() ? "" : " read_only=" + c.read_only[0]));
    PathCheck v = check(path, c.op, rules(c.allow, c.deny, c.read_only));
    EXPECT_EQ(v.allowed, c.code.empty());
    EXPECT_EQ(v.code, c.code);
  }
}

TEST_F(PathRulesGuardTest, FollowedSymlinkIsJudgedWhereItPoints) {
  // link_in_file lives in the allowed area, its target does not.
  EXPECT_EQ(check("link_in_file", PathOp::read, rules({"$B/link_in_file"})).code,
            "path_not_allowed");
  // a symlink in the allowed area pointing into another allowed entry.
  PathCheck v = check(expand("$B/pub/to_data"), PathOp::read, rules({"$B/pub", "$B/data"}));
  EXPECT_TRUE(v.allowed);
  fs::create_symlink("../data/a.txt", base_ + "/pub/to_data");
  v = check(expand("$B/pub/to_data"), PathOp::read, rules({"$B/pub", "$B/data"}));
  EXPECT_TRUE(v.allowed) << v.code;
  EXPECT_EQ(v.resolved, base_ + "/data/a.txt");
}

TEST_F(PathRulesGuardTest, SymlinkChainWithinLimitFollowed) {
  std::string prev = "file.txt";
  for (int i = 0; i < 40; ++i) {
    std::string name = "chain" + std::to_string(i);
    link(prev, name);
    prev = name;
  }
  EXPECT_EQ(check(prev).resolved, base_ + "/file.txt");
  link(prev, "chain40");
  EXPECT_EQ(check("chain40").code, "path_not_allowed");
}

TEST_F(PathRulesGuardTest, LexicalCheckNeverTouchesTheFilesystem) {
  using abx::kernel::checkPathLexically;
  const PathRules none;
  // Symlinks are just names: judged where they sit, not where they point.
  EXPECT_EQ(checkPathLexically(base_, none, "link_out_file", PathOp::read).resolved,
            base_ + "/link_out_file");
  EXPECT_EQ(checkPathLexically(base_, none, "link_in/../file.txt", PathOp::read).resolved,
            base_ + "/file.txt");
  EXPECT_TRUE(
      checkPathLexically(base_, rules({}, {}, {}, "deny"), "link_in", PathOp::read).allowed);
  // The rules still apply.
  EXPECT_EQ(checkPathLexically(base_, none, "../outside", PathOp::read).code, "path_not_allowed");
  EXPECT_EQ(checkPathLexically(base_, none, "/proc/self", PathOp::read).code, "path_denied");
  EXPECT_EQ(checkPathLexically(base_, none, base_, PathOp::remove).code, "path_not_allowed");
  EXPECT_EQ(checkPathLexically(base_, rules({}, {"**/.git/**"}), ".git/x", PathOp::read).code,
            "path_denied");
  EXPECT_EQ(checkPathLexically(base_, rules({}, {}, {"$B/ro"}), "ro/x", PathOp::write).code,
            "read_only");
  EXPECT_EQ(checkPathLexically(base_, none, "", PathOp::read).status, 400);
  EXPECT_EQ(checkPathLexically("/nonexistent/base", none, "x/../y", PathOp::write).resolved,
            "/nonexistent/base/y");
}

// ---- openPath ----

TEST_F(PathRulesGuardTest, OpenReadsWritesAndLists) {
  auto fd = openPath(base_, {}, "file.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();
  EXPECT_EQ(readFd(*fd), "inside");

  fd = openPath(base_, {}, "link_in/inner.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();
  EXPECT_EQ(readFd(*fd), "inner");

  fd = openPath(base_, {}, "sub/new.txt", PathOp::write, O_WRONLY | O_CREAT | O_EXCL, 0600);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();
  EXPECT_EQ(::write(*fd, "n", 1), 1);
  ::close(*fd);
  EXPECT_TRUE(fs::is_regular_file(base_ + "/sub/new.txt"));

  fd = openPath(base_, {}, ".", PathOp::list, O_RDONLY | O_DIRECTORY, 0);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();
  ::close(*fd);
}

TEST_F(PathRulesGuardTest, OpenDenialsCarryTheCode) {
  auto fd = openPath(base_, {}, "link_out_file", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "PermissionError");
  EXPECT_EQ(fd.status().message(), "path_not_allowed");

  fd = openPath(base_, {}, "/proc/self/environ", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().message(), "path_denied");

  fd = openPath(base_, rules({}, {}, {}, "deny"), "link_in_file", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "PermissionError");
  EXPECT_EQ(fd.status().message(), "symlink_denied");

  fd = openPath(base_, {}, "", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "ValueError");
  EXPECT_EQ(fd.status().message(), "invalid_path");
}

TEST_F(PathRulesGuardTest, OpenMissingAndNotADirectory) {
  auto fd = openPath(base_, {}, "missing.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "FileNotFoundError");
  EXPECT_EQ(fd.status().message(), "No such file or directory: missing.txt");

  fd = openPath(base_, {}, "dangling_in", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "FileNotFoundError");
  EXPECT_THAT(fd.status().message(), Not(HasSubstr(root_)));

  fd = openPath(base_, {}, "file.txt/x", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "OSError");
  EXPECT_EQ(fd.status().message(), "Not a directory: file.txt/x");
}

TEST_F(PathRulesGuardTest, FinalComponentSwappedAfterCheck) {
  writeFile(base_ + "/victim.txt", "mine");
  PathCheck v = check("victim.txt");
  ASSERT_TRUE(v.allowed);
  fs::remove(base_ + "/victim.txt");
  fs::create_symlink("/etc/hostname", base_ + "/victim.txt");

  for (int flags : {O_RDONLY, O_WRONLY | O_TRUNC, O_RDONLY | O_DIRECTORY}) {
    auto fd = openChecked(v, "victim.txt", flags, 0);
    ASSERT_FALSE(fd.isOk()) << "flags " << flags;
    EXPECT_EQ(fd.status().type(), "PermissionError");
    EXPECT_EQ(fd.status().message(), "symlink_denied");
  }
  // A fresh check sees the symlink: out of bounds, or refused outright.
  auto fd = openPath(base_, {}, "victim.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().message(), "path_not_allowed");
  fd = openPath(base_, rules({}, {}, {}, "deny"), "victim.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().message(), "symlink_denied");
}

TEST_F(PathRulesGuardTest, IntermediateDirectorySwappedAfterCheck) {
  fs::create_directories(base_ + "/dir/deeper");
  writeFile(base_ + "/dir/deeper/f.txt", "mine");
  fs::create_directories(out_ + "/deeper");
  writeFile(out_ + "/deeper/f.txt", "theirs");
  PathCheck v = check("dir/deeper/f.txt", PathOp::write);
  ASSERT_TRUE(v.allowed);
  fs::rename(base_ + "/dir", base_ + "/dir.old");
  fs::create_symlink(out_, base_ + "/dir");

  auto fd = openChecked(v, "dir/deeper/f.txt", O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().type(), "PermissionError");
  EXPECT_EQ(fd.status().message(), "symlink_denied");

  fd = openChecked(v, "dir/deeper/f.txt", O_WRONLY | O_CREAT, 0644);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().message(), "symlink_denied");
  std::string theirs;
  std::ifstream(out_ + "/deeper/f.txt") >> theirs;
  EXPECT_EQ(theirs, "theirs");
}

TEST_F(PathRulesGuardTest, OpenDanglingSymlinkInsideCreatesItsTarget) {
  // A dangling link inside is judged, and opened, as its target path.
  PathCheck v = check("dangling_in", PathOp::write);
  ASSERT_TRUE(v.allowed);
  auto fd = openChecked(v, "dangling_in", O_WRONLY | O_CREAT, 0644);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();  // creates the target, $B/not_yet
  ::close(*fd);
  EXPECT_TRUE(fs::is_regular_file(base_ + "/not_yet"));
}

// ---- BaseDirPathGuard delegates ----

TEST_F(PathRulesGuardTest, BaseDirPathGuardDelegates) {
  BaseDirPathGuard guard(base_ + "/./sub/..");
  EXPECT_EQ(guard.baseDir(), base_);
  EXPECT_EQ(guard.check("e", "file.txt", PathOp::read).resolved, base_ + "/file.txt");
  EXPECT_EQ(guard.check("e", "../outside/secret.txt", PathOp::read).code, "path_not_allowed");
  EXPECT_EQ(guard.check("e", "/dev/null", PathOp::read).message, "Path denied: /dev/null");
  EXPECT_EQ(guard.check("e", base_, PathOp::remove).code, "path_not_allowed");
  EXPECT_EQ(guard.check("e", "", PathOp::read).status, 400);
  auto fd = guard.open("e", "sub/inner.txt", PathOp::read, O_RDONLY, 0);
  ASSERT_TRUE(fd.isOk()) << fd.status().message();
  EXPECT_EQ(readFd(*fd), "inner");
  fd = guard.open("e", "link_out_file", PathOp::read, O_RDONLY, 0);
  ASSERT_FALSE(fd.isOk());
  EXPECT_EQ(fd.status().message(), "path_not_allowed");
}

}  // namespace
