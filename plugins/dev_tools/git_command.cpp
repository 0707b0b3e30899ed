#include "git_command.h"

#include "run_budget.h"

namespace abx::plugins::dev_tools {

std::vector<std::string> gitArgv(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "--no-pager", "-c", "color.ui=never"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::variant<sdk::Completed, sdk::HttpError> runGit(const GitRun& run) {
  sdk::SpawnOptions spawn;
  spawn.argv = gitArgv(run.args);
  spawn.env = run.env;
  spawn.cwd = run.repo_dir;
  spawn.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = run.timeout;
  limits.max_output_bytes = run.max_output_bytes;
  limits.ladder = {std::chrono::milliseconds(500), std::chrono::milliseconds(500)};
  auto done = sdk::Subprocess::run(spawn, limits);
  if (!done) {
    const auto& s = done.status();
    if (s.type() == "FileNotFoundError")
      return sdk::HttpError{500, "git is not installed", "FileNotFoundError", {}};
    return sdk::HttpError{500, s.message(), s.type().empty() ? "OSError" : s.type(), {}};
  }
  if (done->timed_out)
    return sdk::HttpError{408, "git " + timedOutAfter(run.timeout), "TimeoutError", {}};
  if (done->exit_code != 0 && !done->truncated) {
    std::string message = done->err;
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    if (message.empty()) message = "git exited with status " + std::to_string(done->exit_code);
    return sdk::HttpError{400, message, "GitError", {}};
  }
  return std::move(*done);
}

}  // namespace abx::plugins::dev_tools
