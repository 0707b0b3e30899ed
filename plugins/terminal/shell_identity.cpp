#include "shell_identity.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <optional>

#include "abx/sdk/program_identity.h"

namespace abx::plugins::terminal {
namespace {

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<std::string> realPath(const std::string& path) {
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) return std::nullopt;
  return std::string(buf);
}

bool listed(const std::string& real, const std::vector<std::string>& allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& entry) {
    return entry == real || (entry.find('/') == std::string::npos && entry == baseName(real));
  });
}

}  // namespace

bool shellFileAllowed(const std::string& resolved, const std::vector<std::string>& allowed) {
  const sdk::ProgramIdentity id = sdk::identifyProgramFile(resolved);
  if (!id.real) return false;
  if (*id.real != resolved && !id.system_links && !listed(*id.real, allowed)) return false;
  if (id.kind != sdk::ProgramKind::script) return true;
  const std::string& interpreter = id.interpreter.front();
  auto real_interpreter = realPath(interpreter);
  return real_interpreter && (listed(interpreter, allowed) || listed(*real_interpreter, allowed));
}

}  // namespace abx::plugins::terminal
