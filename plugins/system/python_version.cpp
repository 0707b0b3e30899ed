#include "python_version.h"

#include <cctype>

#include "abx/sdk/subprocess.h"
#include "child_env.h"

namespace abx::plugins::system {

std::optional<std::string> parsePythonVersion(std::string_view text) {
  constexpr std::string_view kPrefix = "Python ";
  auto at = text.find(kPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  text.remove_prefix(at + kPrefix.size());
  std::size_t end = 0;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  std::string_view version = text.substr(0, end);
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front())))
    return std::nullopt;
  return std::string(version);
}

std::optional<std::string> probePythonVersion(const std::vector<std::string>& env,
                                              std::chrono::milliseconds timeout) {
  sdk::SpawnOptions options;
  options.argv = {"python3", "-I", "--version"};
  options.env = env;
  options.cwd = std::string(kNeutralDir);
  options.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = timeout;
  limits.max_output_bytes = 4096;
  limits.ladder = {std::chrono::milliseconds(200), std::chrono::milliseconds(200)};
  auto run = sdk::Subprocess::run(options, limits);
  if (!run || run->timed_out || run->exit_code != 0) return std::nullopt;
  // Python 2 printed its version on stderr.
  if (auto version = parsePythonVersion(run->out)) return version;
  return parsePythonVersion(run->err);
}

}  // namespace abx::plugins::system
