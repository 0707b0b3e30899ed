#include "policy/base_dir_path_guard.h"

#include <limits.h>
#include <stdlib.h>

#include <filesystem>

#include "abx/sdk/policy.h"
#include "policy/path_rules_guard.h"

namespace abx::kernel {
namespace {

namespace fs = std::filesystem;

// realpath() of the longest existing prefix of the configured base dir, with
// the rest appended: the boundary every later check compares against.
std::string realBaseDir(const fs::path& absolute) {
  fs::path existing = absolute;
  fs::path rest;
  while (!existing.empty() && existing != existing.root_path()) {
    char buf[PATH_MAX];
    if (::realpath(existing.c_str(), buf)) {
      fs::path out(buf);
      if (!rest.empty()) out /= rest;
      return out.lexically_normal().string();
    }
    rest = rest.empty() ? existing.filename() : existing.filename() / rest;
    existing = existing.parent_path();
  }
  return absolute.lexically_normal().string();
}

// The default rules: allow the base dir, deny nothing more, follow symlinks
// that stay inside.
const sdk::PathRules& defaultRules() {
  static const sdk::PathRules rules;
  return rules;
}

}  // namespace

BaseDirPathGuard::BaseDirPathGuard(std::string base_dir) {
  fs::path base(base_dir.empty() ? "/home/user" : base_dir);
  base_ = realBaseDir(fs::absolute(base));
}

sdk::PathCheck BaseDirPathGuard::check(std::string_view, std::string_view path,
                                       sdk::PathOp op) const {
  return checkPath(base_, defaultRules(), path, op);
}

sdk::Result<int> BaseDirPathGuard::open(std::string_view, std::string_view path, sdk::PathOp op,
                                        int flags, int mode) const {
  return openPath(base_, defaultRules(), path, op, flags, mode);
}

}  // namespace abx::kernel
