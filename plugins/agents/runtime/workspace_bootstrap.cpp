// The running half of the workspace bootstrap (workspace_bootstrap.h): what
// the workspace holds, the git children run through TurnProcess under a
// deadline and an output cap, their output as the clone item's output, and
// the clean-up of a clone that failed.
#include "workspace_bootstrap.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "turn_items.h"
#include "turn_launch.h"
#include "turn_process.h"

namespace abx::plugins::agents {
namespace {

namespace fs = std::filesystem;
using sdk::agents::ParsedEvent;
using sdk::agents::ParsedKind;

constexpr std::size_t kErrorTailBytes = 2048;
constexpr std::uint64_t kMaxGitOutput = 1u << 20;

// One lock per workspace path: the sessions of one agent share its workspace,
// and two first turns must not clone into it at once.
std::shared_ptr<std::mutex> workspaceLock(const std::string& path) {
  static std::mutex table_mutex;
  static std::map<std::string, std::shared_ptr<std::mutex>> table;
  std::lock_guard lock(table_mutex);
  auto& slot = table[path];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

enum class Holds { nothing, checkout, other, not_directory };

// What @p path holds, without following a symlink at the path or at .git.
Holds inspect(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return Holds::nothing;
  if (!S_ISDIR(st.st_mode)) return Holds::not_directory;
  std::error_code ec;
  if (fs::directory_iterator(path, ec) == fs::directory_iterator()) return Holds::nothing;
  struct stat git {};
  if (::lstat((path + "/.git").c_str(), &git) == 0 && S_ISDIR(git.st_mode)) return Holds::checkout;
  return Holds::other;
}

// remote.origin.url of the checkout in @p path; read with --file, so no
// repository discovery and nothing of the checkout's configuration runs.
std::string originOf(const std::string& path, const GitPlan& plan) {
  sdk::SpawnOptions spawn;
  spawn.argv = {"git", "config", "--file", path + "/.git/config", "--get", "remote.origin.url"};
  spawn.env = plan.env;
  spawn.stdin_pipe = false;
  sdk::RunLimits limits;
  limits.timeout = std::chrono::milliseconds(10000);
  limits.max_output_bytes = 64u << 10;
  auto done = sdk::Subprocess::run(spawn, limits);
  if (!done || done->exit_code != 0) return {};
  auto url = done->out;
  while (!url.empty() && (url.back() == '\n' || url.back() == '\r')) url.pop_back();
  return url;
}

// Empties @p path (which was empty before the clone): a failed clone leaves
// nothing a later turn would take for a checkout.
void empty(const std::string& path) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) fs::remove_all(entry.path(), ec);
}

// True when the checkout's own configuration holds @p secret: the check that
// the credential stayed in the environment.
bool configHolds(const std::string& path, const std::string& secret) {
  if (secret.empty()) return false;
  std::ifstream in(path + "/.git/config", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str().find(secret) != std::string::npos;
}

class CloneRun {
 public:
  CloneRun(const BootstrapRequest& request, const GitPlan& plan, const std::atomic<bool>& cancel,
           TurnItems& items)
      : request_(request), plan_(plan), cancel_(cancel), items_(items) {}

  // Runs every step; @return the failure, or nullopt when all exited 0.
  std::optional<TurnError> run() {
    ParsedEvent start;
    start.kind = ParsedKind::tool_start;
    start.id = kItemId;
    start.tool_kind = "command";
    start.name = "git";
    start.command = plan_.display;
    items_.apply(start);
    const auto deadline = std::chrono::steady_clock::now() + request_.timeout;
    for (const auto& argv : plan_.steps) {
      auto failure = step(argv, deadline);
      if (failure) return end(false, std::move(failure));
    }
    return end(true, std::nullopt);
  }

 private:
  static constexpr const char* kItemId = "workspace-git";

  std::optional<TurnError> step(const std::vector<std::string>& argv,
                                std::chrono::steady_clock::time_point deadline) {
    sdk::SpawnOptions spawn;
    spawn.argv = argv;
    spawn.env = plan_.env;
    spawn.cwd = request_.workspace;
    spawn.merge_stderr = true;
    TurnProcessLimits limits;
    limits.turn_timeout = std::max(std::chrono::milliseconds(1),
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - std::chrono::steady_clock::now()));
    limits.max_output_bytes = kMaxGitOutput;
    limits.ladder = request_.ladder;
    auto outcome = runTurnProcess(spawn, std::nullopt, limits, cancel_, [&](std::string_view line) {
      ParsedEvent out;
      out.kind = ParsedKind::tool_output;
      out.id = kItemId;
      out.text = std::string(line) + "\n";
      tail_.append(out.text);
      if (tail_.size() > kErrorTailBytes) tail_.erase(0, tail_.size() - kErrorTailBytes);
      items_.apply(out);
    });
    exit_code_ = outcome.exit_code;
    switch (outcome.stop) {
      case TurnStop::exited:
        if (outcome.exit_code == 0) return std::nullopt;
        return failed("git " + argv[1] + " exited with " + std::to_string(outcome.exit_code));
      case TurnStop::spawn_failed:
        return failed("could not start git: " + outcome.spawn_error);
      case TurnStop::cancelled:
        return TurnError{"cancelled", "the turn was cancelled during the workspace clone"};
      case TurnStop::output_limit:
        return failed("git wrote more than " + std::to_string(kMaxGitOutput) + " bytes");
      default:
        return failed("git did not finish within " +
                      std::to_string(request_.timeout.count() / 1000) + " s");
    }
  }

  TurnError failed(const std::string& why) const {
    auto text = "workspace bootstrap: cloning " + splitGitRemote(request_.git->url).url + " into " +
                request_.workspace + " failed: " + why;
    auto said = tail_;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    if (!said.empty()) text += ": " + said;
    return {"sandbox_error", request_.redaction->redact(text)};
  }

  std::optional<TurnError> end(bool ok, std::optional<TurnError> failure) {
    ParsedEvent end;
    end.kind = ParsedKind::tool_end;
    end.id = kItemId;
    end.status = ok ? "completed" : "failed";
    end.exit_code = exit_code_;
    if (failure) end.error = failure->message;
    items_.apply(end);
    return failure;
  }

  const BootstrapRequest& request_;
  const GitPlan& plan_;
  const std::atomic<bool>& cancel_;
  TurnItems& items_;
  std::string tail_;
  int exit_code_ = 0;
};

// Clones into the (absent or empty) workspace; empties it again on failure.
std::optional<TurnError> cloneInto(const BootstrapRequest& request, const GitPlan& plan,
                                   const std::atomic<bool>& cancel, TurnItems& items) {
  const auto& ws = request.workspace;
  std::error_code ec;
  if (fs::create_directories(ws, ec)) (void)sdk::Subprocess::giveToChildUser(ws);
  if (ec)
    return TurnError{"sandbox_error", "could not create workspace " + ws + ": " + ec.message()};
  auto failure = CloneRun(request, plan, cancel, items).run();
  const auto remote = splitGitRemote(request.git->url);
  if (!failure && (configHolds(ws, request.git->token) || configHolds(ws, remote.password)))
    failure = TurnError{"internal_error",
                        "workspace bootstrap: the checkout's .git/config holds the credential"};
  if (failure) empty(ws);
  return failure;
}

}  // namespace

std::optional<TurnError> bootstrapWorkspace(const BootstrapRequest& request,
                                            const std::atomic<bool>& cancel, TurnItems& items) {
  const auto& ws = request.workspace;
  const auto plan =
      gitClonePlan(*request.git, ws, request.depth, request.base_env, request.is_protected);
  const auto lock = workspaceLock(ws);
  std::lock_guard hold(*lock);
  std::optional<TurnError> failure;
  switch (inspect(ws)) {
    case Holds::nothing:
      failure = cloneInto(request, plan, cancel, items);
      break;
    case Holds::checkout: {
      // Reused as it is: no fetch, the agent's earlier work stays.
      const auto wanted = splitGitRemote(request.git->url).url;
      const auto found = originOf(ws, plan);
      if (found != wanted)
        failure = TurnError{
            "sandbox_error",
            request.redaction->redact("workspace bootstrap: " + ws +
                                      " holds a checkout of another repository (" +
                                      (found.empty() ? "no origin" : found) + "), not " + wanted)};
      break;
    }
    case Holds::other:
      failure = TurnError{"sandbox_error", "workspace bootstrap: " + ws +
                                               " is not empty and holds no git checkout to reuse"};
      break;
    case Holds::not_directory:
      failure =
          TurnError{"sandbox_error", "workspace bootstrap: " + ws +
                                         " is not a directory (a symbolic link is not followed)"};
      break;
  }
  if (failure) return failure;
  std::error_code ec;
  fs::create_directories(request.workdir.empty() ? ws : request.workdir, ec);
  if (ec)
    return TurnError{"sandbox_error",
                     "could not create workspace " + request.workdir + ": " + ec.message()};
  return std::nullopt;
}

std::optional<TurnError> bootstrapTurnWorkspace(const TurnLaunch& launch,
                                                const RuntimeOptions& options,
                                                const std::atomic<bool>& cancel, TurnItems& items) {
  const auto& spec = launch.spec();
  if (!spec.workspace.git) return std::nullopt;
  BootstrapRequest request;
  request.git = &*spec.workspace.git;
  request.depth = launch.agent->git_depth;
  request.workspace = spec.workspace.path;
  request.workdir = launch.context.workdir;
  if (options.base_env) request.base_env = options.base_env();
  request.is_protected = options.env_protected;
  if (launch.limits.turn_timeout && *launch.limits.turn_timeout < request.timeout)
    request.timeout = *launch.limits.turn_timeout;
  request.ladder = options.ladder;
  request.redaction = launch.redaction.get();
  return bootstrapWorkspace(request, cancel, items);
}

}  // namespace abx::plugins::agents
