// libFuzzer target for the policy parser and the path checker. Built and run
// by tests/fuzz/run.sh with -fsanitize=fuzzer,address,undefined.
//
// The first input byte picks a mode, the rest is the payload:
//   0  parsePolicy(payload), then selectorKind / globMatch on what it parsed
//   1  payload = "<path>\n<rule>\n<rule>...": each rule's first byte says which
//      list it joins (allow / deny / read_only / symlinks=deny); checkPath and
//      checkPathLexically for every PathOp under a fixed temporary base dir
//      (files, a directory, symlinks inside, out, absolute, dangling, a loop)
//   2  parseSize(payload), and globMatch(pattern, text) on "<pattern>\n<text>"
//
// Besides the sanitizers, a few invariants abort on violation: an allowed
// verdict names a normalised absolute path outside /proc, /sys and /dev, never
// "/"; with no rules at all it lies inside the base dir.
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "abx/sdk/path_guard.h"
#include "abx/sdk/policy.h"
#include "policy/path_rules_guard.h"
#include "policy/policy_document.h"

namespace {

using abx::kernel::checkPath;
using abx::kernel::checkPathLexically;
using abx::kernel::globMatch;
using abx::kernel::parsePolicy;
using abx::kernel::parseSize;
using abx::kernel::selectorKind;
using abx::sdk::PathCheck;
using abx::sdk::PathOp;
using abx::sdk::PathRules;

constexpr PathOp kOps[] = {PathOp::read, PathOp::write, PathOp::remove, PathOp::list};

[[noreturn]] void violated(const char* what, std::string_view path, const PathCheck& c) {
  std::fprintf(stderr, "invariant violated: %s\n  path: '%.*s'\n  resolved: '%s' code: '%s'\n",
               what, static_cast<int>(path.size()), path.data(), c.resolved.c_str(),
               c.code.c_str());
  std::abort();
}

/** The fixed base dir under $TMPDIR, created on first use and removed at exit. */
class BaseDir {
 public:
  BaseDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/abx-policy-fuzz.XXXXXX";
    if (!::mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    namespace fs = std::filesystem;
    path_ = fs::canonical(tmpl).string();
    const fs::path b(path_);
    fs::create_directories(b / "sub" / "deep");
    fs::create_directories(b / "ro");
    for (const char* f : {"a.txt", "sub/b.txt", "sub/deep/c.bin", "ro/locked.txt", ".hidden"}) {
      if (std::FILE* out = std::fopen((b / f).c_str(), "w")) {
        std::fputs("x\n", out);
        std::fclose(out);
      }
    }
    fs::create_directory_symlink("sub", b / "link_in");              // relative, inside
    fs::create_symlink("sub/b.txt", b / "link_file");                // relative, to a file
    fs::create_directory_symlink(b / "sub" / "deep", b / "abs_in");  // absolute, inside
    fs::create_directory_symlink("/etc", b / "link_out");            // absolute, outside
    fs::create_directory_symlink("../..", b / "sub" / "up");         // relative, escapes
    fs::create_symlink("missing", b / "dangling");                   // dangling
    fs::create_symlink("loop", b / "loop");                          // ELOOP
    fs::create_directory_symlink("/proc/self", b / "proc_link");     // always denied
  }
  ~BaseDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const std::string& baseDir() {
  static BaseDir dir;
  return dir.path();
}

bool within(std::string_view path, std::string_view root) {
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

void checkVerdict(const PathCheck& c, std::string_view path, bool no_rules) {
  if (!c.allowed) {
    if (c.code.empty()) violated("a denial without a code", path, c);
    if (c.status != 403 && c.status != 400) violated("a denial status not 400/403", path, c);
    return;
  }
  const std::string& r = c.resolved;
  if (r.empty() || r.front() != '/') violated("resolved is not absolute", path, c);
  if (r == "/") violated("'/' allowed", path, c);
  if (r.size() > 1 && r.back() == '/') violated("resolved ends with '/'", path, c);
  if (r.find("//") != std::string::npos || r.find("/./") != std::string::npos ||
      r.find("/../") != std::string::npos || r.ends_with("/.") || r.ends_with("/.."))
    violated("resolved is not normalised", path, c);
  for (const char* forbidden : {"/proc", "/sys", "/dev"})
    if (within(r, forbidden)) violated("an always-denied tree allowed", path, c);
  if (no_rules && !within(r, baseDir())) violated("allowed outside the base dir", path, c);
}

std::vector<std::string_view> splitLines(std::string_view s, std::size_t max_parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_parts) {
    auto nl = s.find('\n');
    if (nl == std::string_view::npos) break;
    out.push_back(s.substr(0, nl));
    s.remove_prefix(nl + 1);
  }
  out.push_back(s);
  return out;
}

void fuzzPolicy(std::string_view text) {
  auto doc = parsePolicy(text, "fuzz");
  if (!doc) {
    // A failure always explains itself.
    if (doc.status().message().empty()) std::abort();
    return;
  }
  static const char* kIds[] = {"fs_read", "fs_write", "process_run", "browser_open", "health"};
  for (const auto& [selector, rule] : doc->endpoints) {
    (void)selectorKind(selector);
    for (const char* id : kIds) (void)globMatch(selector, id);
  }
}

void fuzzPaths(std::string_view payload) {
  auto parts = splitLines(payload, 9);
  std::string_view path = parts[0];
  PathRules rules;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view rule = parts[i];
    if (rule.empty()) continue;
    const char kind = rule.front();
    rule.remove_prefix(1);
    switch (static_cast<unsigned char>(kind) % 4) {
      case 0:
        rules.allow.emplace_back(rule);
        break;
      case 1:
        rules.deny.emplace_back(rule);
        break;
      case 2:
        rules.read_only.emplace_back(rule);
        break;
      default:
        rules.symlinks = "deny";
        break;
    }
  }
  const std::string& base = baseDir();
  const PathRules none;
  for (PathOp op : kOps) {
    checkVerdict(checkPathLexically(base, rules, path, op), path, false);
    checkVerdict(checkPath(base, rules, path, op), path, false);
    checkVerdict(checkPathLexically(base, none, path, op), path, true);
    checkVerdict(checkPath(base, none, path, op), path, true);
  }
}

void fuzzText(std::string_view payload) {
  (void)parseSize(payload);
  auto nl = payload.find('\n');
  std::string_view pattern = payload.substr(0, nl);
  std::string_view text =
      nl == std::string_view::npos ? std::string_view() : payload.substr(nl + 1);
  (void)globMatch(pattern, text);
  (void)selectorKind(pattern);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view payload(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      fuzzPolicy(payload);
      break;
    case 1:
      fuzzPaths(payload);
      break;
    default:
      fuzzText(payload);
      break;
  }
  return 0;
}
