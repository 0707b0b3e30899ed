#include "git_repository.h"

#include <limits.h>
#include <stdlib.h>

#include <fstream>
#include <vector>

namespace abx::plugins::dev_tools {
namespace {

std::string parentOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

std::optional<std::string> realPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

sdk::HttpError outside(const std::string& what) {
  return sdk::HttpError{403, "The repository's " + what + " is outside the allowed paths",
                        "PermissionError", "path_not_allowed"};
}

/** The object stores named in @p objects/info/alternates (absolute, unresolved). */
std::vector<std::string> alternatesOf(const std::string& objects) {
  std::vector<std::string> out;
  std::ifstream in(objects + "/info/alternates");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line[0] == '/' ? line : objects + "/" + line);
  }
  return out;
}

}  // namespace

bool isWithin(std::string_view path, std::string_view root) {
  if (root == "/") return true;
  return path.starts_with(root) && (path.size() == root.size() || path[root.size()] == '/');
}

std::optional<GitRepository> parseRepositoryPaths(std::string_view out) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string_view::npos) end = out.size();
    lines.emplace_back(out.substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() != 3) return std::nullopt;
  for (const auto& line : lines)
    if (line.empty() || line.front() != '/') return std::nullopt;
  return GitRepository{lines[0], lines[1], lines[2]};
}

std::string discoveryCeiling(const std::string& dir, const AllowedPath& allowed) {
  std::string top = dir;
  // Bounded by the depth of the path: each step removes one component.
  while (top != "/") {
    const std::string parent = parentOf(top);
    if (parent == top || !allowed(parent)) break;
    top = parent;
  }
  return top == "/" ? "/" : parentOf(top);
}

std::optional<sdk::HttpError> confineRepository(GitRepository& repo, const std::string& requested,
                                                const AllowedPath& allowed) {
  auto top = realPath(repo.top_level);
  if (!top || !allowed(*top)) return outside("work tree");
  repo.top_level = *top;
  // Inside the work tree (its .git) or allowed on its own (a worktree's
  // common directory elsewhere in the area); a symlink is judged where it leads.
  auto confined = [&](const std::string& path) -> std::optional<std::string> {
    auto real = realPath(path);
    if (!real || (!isWithin(*real, repo.top_level) && !allowed(*real))) return std::nullopt;
    return real;
  };
  auto git_dir = confined(repo.git_dir);
  if (!git_dir) return outside("git directory");
  auto common_dir = confined(repo.common_dir);
  if (!common_dir) return outside("common directory");
  repo.git_dir = *git_dir;
  repo.common_dir = *common_dir;
  const std::string objects = repo.common_dir + "/objects";
  if (!confined(objects)) return outside("object store");
  for (const auto& alternate : alternatesOf(objects))
    if (!confined(alternate)) return outside("alternate object store");
  const std::string index = repo.git_dir + "/index";
  if (realPath(index) && !confined(index)) return outside("index");
  if (!isWithin(requested, repo.top_level))
    return sdk::HttpError{400, "The path is not inside the repository's work tree", "GitError", {}};
  return std::nullopt;
}

}  // namespace abx::plugins::dev_tools
