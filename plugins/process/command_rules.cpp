#include "command_rules.h"

#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace abx::plugins::process {
namespace {

constexpr std::string_view kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

std::optional<std::string_view> envValue(const std::vector<std::string>& env,
                                         std::string_view name) {
  for (const auto& entry : env)
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      return std::string_view(entry).substr(name.size() + 1);
  return std::nullopt;
}

bool isExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string absoluteAgainst(std::string_view path, std::string_view cwd) {
  if (!path.empty() && path.front() == '/') return lexicallyNormal(path);
  std::string base(cwd);
  if (base.empty() || base.front() != '/') {
    char buf[4096];
    base = ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string("/");
  }
  return lexicallyNormal(base + "/" + std::string(path));
}

bool globMatch(const std::string& pattern, const std::string& text, int flags) {
  return ::fnmatch(pattern.c_str(), text.c_str(), flags) == 0;
}

}  // namespace

std::string_view baseName(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string lexicallyNormal(std::string_view path) {
  const bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(part);
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  if (out.empty()) out = ".";
  return out;
}

std::optional<std::string> resolveProgram(std::string_view argv0,
                                          const std::vector<std::string>& env,
                                          std::string_view cwd) {
  if (argv0.empty()) return std::nullopt;
  if (argv0.find('/') != std::string_view::npos) return absoluteAgainst(argv0, cwd);
  const std::string_view path = envValue(env, "PATH").value_or(kDefaultPath);
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view dir = path.substr(start, end - start);
    start = end + 1;
    std::string candidate = absoluteAgainst(
        std::string(dir.empty() ? std::string_view(".") : dir) + "/" + std::string(argv0), cwd);
    if (isExecutableFile(candidate)) return candidate;
  }
  return std::nullopt;
}

bool isShell(std::string_view argv0) {
  const auto name = baseName(argv0);
  return std::find(std::begin(kShellNames), std::end(kShellNames), name) != std::end(kShellNames);
}

bool programMatches(const std::vector<std::string>& patterns, std::string_view argv0,
                    const std::optional<std::string>& resolved) {
  const std::string name(baseName(argv0));
  const bool given_path = argv0.find('/') != std::string_view::npos;
  const std::string given(argv0);
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& pattern) {
    if (pattern.find('/') == std::string::npos) return globMatch(pattern, name, 0);
    if (resolved && globMatch(pattern, *resolved, FNM_PATHNAME)) return true;
    return given_path && globMatch(pattern, given, FNM_PATHNAME);
  });
}

std::vector<std::string> withoutDenied(std::vector<std::string> env,
                                       const std::optional<std::vector<std::string>>& deny) {
  if (!deny || deny->empty()) return env;
  std::erase_if(env, [&](const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('='));
    return std::any_of(deny->begin(), deny->end(),
                       [&](const std::string& pattern) { return globMatch(pattern, name, 0); });
  });
  return env;
}

}  // namespace abx::plugins::process
