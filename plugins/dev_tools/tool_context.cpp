#include "tool_context.h"

#include <sys/stat.h>

#include <algorithm>

namespace abx::plugins::dev_tools {
namespace {

bool isDirectory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

bool hasDotDotSegment(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

std::vector<std::string> childEnv(const ToolContext& context,
                                  const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  if (context.environment) env = context.environment->snapshot();
  for (const std::string& add : extra) {
    const auto name = add.substr(0, add.find('=') + 1);
    std::erase_if(env, [&](const std::string& e) { return e.starts_with(name); });
    env.push_back(add);
  }
  if (std::none_of(env.begin(), env.end(),
                   [](const std::string& e) { return e.starts_with("PATH="); }))
    env.emplace_back(kDefaultPathEntry);
  return env;
}

std::variant<std::string, sdk::HttpError> directoryOf(const ToolContext& context,
                                                      const std::string& endpoint,
                                                      std::string_view path,
                                                      std::string_view field) {
  const std::string name(field);
  if (path.empty()) {
    if (context.paths) {
      auto base = context.paths->check(endpoint, ".", sdk::PathOp::read);
      if (base.allowed && isDirectory(base.resolved)) return base.resolved;
    }
    if (!context.base_dir.empty() && isDirectory(context.base_dir)) return context.base_dir;
    return sdk::HttpError{
        400, "No working directory: the base directory does not exist", "FileNotFoundError", {}};
  }
  if (path.find('\0') != std::string_view::npos)
    return sdk::HttpError::badRequest("Field '" + name + "' cannot contain NUL bytes");
  // The spec's rule for git paths, kept for every path here: a ".." segment
  // is refused outright, before the guard looks at where it would lead.
  if (hasDotDotSegment(path))
    return sdk::HttpError::badRequest("Invalid " + name + ": '..' is not allowed");
  if (!context.paths)
    return sdk::HttpError{403, "Path not allowed: " + std::string(path), "PermissionError",
                          "path_not_allowed"};
  auto check = context.paths->check(endpoint, path, sdk::PathOp::read);
  if (!check.allowed) {
    sdk::HttpError r;
    r.status = check.status;
    r.type = check.status == 400 ? "ValueError" : "PermissionError";
    r.code = check.code;
    r.message = check.message.empty() ? "Path not allowed: " + std::string(path) : check.message;
    return r;
  }
  struct stat st {};
  if (::stat(check.resolved.c_str(), &st) != 0)
    return sdk::HttpError{
        400, "Directory does not exist: " + std::string(path), "FileNotFoundError", {}};
  if (!S_ISDIR(st.st_mode))
    return sdk::HttpError{400, "Not a directory: " + std::string(path), "NotADirectoryError", {}};
  return check.resolved;
}

}  // namespace abx::plugins::dev_tools
