#include "git_session.h"

#include <filesystem>

#include "git_command.h"
#include "git_environment.h"
#include "run_budget.h"

namespace abx::plugins::dev_tools {
namespace {

using Clock = std::chrono::steady_clock;

std::string trimmedOutput(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// Where the private common directories live: the state directory (outside
// the caller's reach), else the system's temporary directory.
std::string viewParent(const ToolContext& context) {
  if (!context.state_dir.empty()) return context.state_dir + "/git-views";
  std::error_code ec;
  auto tmp = std::filesystem::temp_directory_path(ec);
  return (ec ? std::string("/tmp") : tmp.string()) + "/abx-git-views";
}

std::vector<std::string> childSnapshot(const ToolContext& context) {
  return context.environment ? context.environment->snapshot() : std::vector<std::string>{};
}

}  // namespace

std::string literalPathspec(const std::string& relative) { return ":(top,literal)" + relative; }

std::string excludedPathspec(const std::string& relative) {
  return ":(top,literal,exclude)" + relative;
}

std::vector<std::string> scopedGitArgs(std::vector<std::string> args, const std::string& scope,
                                       const std::vector<std::string>& extra_pathspecs) {
  if (!scope.empty() || !extra_pathspecs.empty()) args.emplace_back("--");
  if (!scope.empty()) args.push_back(literalPathspec(scope));
  args.insert(args.end(), extra_pathspecs.begin(), extra_pathspecs.end());
  return args;
}

std::variant<std::unique_ptr<GitSession>, sdk::HttpError> GitSession::open(
    const ToolContext& context, const std::string& endpoint, const GitTarget& target,
    std::chrono::milliseconds timeout) {
  std::unique_ptr<GitSession> session(new GitSession());
  session->context_ = &context;
  session->timeout_ = timeout;
  session->deadline_ = Clock::now() + timeout;
  const AllowedPath allowed = [&](const std::string& path) {
    return context.paths && context.paths->check(endpoint, path, sdk::PathOp::read).allowed;
  };

  // Discovery: git reads the repository's configuration here, but runs
  // nothing while finding paths (and every neutral setting applies).
  GitRun find;
  find.args = {"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir",
               "--git-common-dir"};
  find.repo_dir = target.dir;
  find.env = gitEnvironment(childSnapshot(context), {},
                            {"GIT_CEILING_DIRECTORIES=" + discoveryCeiling(target.dir, allowed)});
  find.max_output_bytes = 3 * 4096 + 3;
  auto found = session->runWithin(find);
  if (auto* refusal = std::get_if<sdk::HttpError>(&found)) return *refusal;
  auto repo = parseRepositoryPaths(trimmedOutput(std::get<sdk::Completed>(found).out));
  if (!repo) return sdk::HttpError{400, "git did not report a work tree", "GitError", {}};
  if (auto refusal = confineRepository(*repo, target.dir, allowed)) return *refusal;
  session->repo_ = *repo;

  // The settings worth keeping, read from the file itself (no includes).
  GitRun list;
  list.args = {"config", "--file", repo->common_dir + "/config", "--list", "-z"};
  list.repo_dir = repo->top_level;
  list.env = gitEnvironment(childSnapshot(context), {}, {});
  list.max_output_bytes = 1u << 20;
  auto listed = session->runWithin(list);
  if (auto* refusal = std::get_if<sdk::HttpError>(&listed)) return *refusal;
  if (std::get<sdk::Completed>(listed).truncated)
    return sdk::HttpError{400, "The repository's config is larger than 1 MiB", "GitError", {}};
  auto config = safeRepositoryConfig(std::get<sdk::Completed>(listed).out);
  if (!config) return sdk::HttpError{400, config.status().message(), "GitError", {}};
  session->settings_ = std::move(config->settings);

  auto view = GitView::create(viewParent(context), session->repo_, *config);
  if (!view) return sdk::HttpError{500, view.status().message(), "OSError", {}};
  session->view_ = std::move(*view);

  std::string requested = target.file ? target.dir + "/" + *target.file : target.dir;
  if (requested != session->repo_.top_level)
    session->scope_ = requested.substr(session->repo_.top_level.size() + 1);
  return session;
}

std::variant<sdk::Completed, sdk::HttpError> GitSession::run(
    std::vector<std::string> args, std::size_t max_output_bytes,
    const std::vector<std::string>& extra_pathspecs) const {
  GitRun run;
  run.args = scopedGitArgs(std::move(args), scope_, extra_pathspecs);
  run.repo_dir = repo_.top_level;
  run.env = gitEnvironment(childSnapshot(*context_), settings_,
                           {"GIT_DIR=" + repo_.git_dir, "GIT_WORK_TREE=" + repo_.top_level,
                            "GIT_COMMON_DIR=" + view_->commonDir()});
  run.max_output_bytes = max_output_bytes;
  return runWithin(run);
}

std::variant<sdk::Completed, sdk::HttpError> GitSession::runWithin(GitRun run) const {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
  const sdk::HttpError late{408, "git " + timedOutAfter(timeout_), "TimeoutError", {}};
  if (left.count() <= 0) return late;
  run.timeout = left;
  auto done = runGit(run);
  if (auto* refusal = std::get_if<sdk::HttpError>(&done);
      refusal && refusal->type == "TimeoutError")
    return late;
  return done;
}

}  // namespace abx::plugins::dev_tools
