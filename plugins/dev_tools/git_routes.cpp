#include "git_routes.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "git_command.h"
#include "git_numstat_parse.h"
#include "git_status_parse.h"
#include "run_budget.h"

namespace abx::plugins::dev_tools {
namespace {

constexpr std::string_view kTruncatedMarker = "\n... (truncated at 1MB)";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string> withPathspec(std::vector<std::string> args, const GitTarget& target) {
  if (target.file) {
    args.emplace_back("--");
    // A literal name, whatever glob characters it holds.
    args.push_back(":(literal)" + *target.file);
  }
  return args;
}

}  // namespace

std::variant<GitTarget, Refusal> gitTarget(const ToolContext& context,
                                           const sdk::Request& request) {
  std::string path(request.queryParam("path").value_or("."));
  if (path.empty()) path = ".";
  // A file: git runs in its directory and looks at that file only.
  if (context.paths && !hasDotDotSegment(path) && path.find('\0') == std::string::npos) {
    auto check = context.paths->check(request.endpoint, path, sdk::PathOp::read);
    struct stat st {};
    if (check.allowed && ::stat(check.resolved.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      auto slash = check.resolved.rfind('/');
      GitTarget target;
      target.dir = slash == 0 ? "/" : check.resolved.substr(0, slash);
      target.file = check.resolved.substr(slash + 1);
      return target;
    }
  }
  auto dir = directoryOf(context, request.endpoint, path, "path");
  if (auto* refusal = std::get_if<Refusal>(&dir)) return *refusal;
  return GitTarget{std::get<std::string>(dir), std::nullopt};
}

std::variant<bool, Refusal> queryFlag(const sdk::Request& request, std::string_view name) {
  auto value = request.queryParam(name);
  if (!value) return false;
  const auto text = lower(*value);
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no" || text.empty()) return false;
  return badRequest("Query parameter '" + std::string(name) + "' must be true or false");
}

sdk::Response gitStatus(const ToolContext& context, const sdk::Request& request) {
  auto target = gitTarget(context, request);
  if (auto* refusal = std::get_if<Refusal>(&target)) return toResponse(*refusal);
  const auto& where = std::get<GitTarget>(target);
  GitRun run;
  run.args = withPathspec({"status", "--porcelain=v1", "-b", "-z"}, where);
  run.repo_dir = where.dir;
  run.timeout = policyTimeout(request.policy, kGitTimeout);
  run.max_output_bytes = kGitListingBytes;
  auto done = runGit(context, run);
  if (auto* refusal = std::get_if<Refusal>(&done)) return toResponse(*refusal);
  const auto& completed = std::get<sdk::Completed>(done);
  if (completed.truncated)
    return sdk::Response::error(500, "git status output is larger than 32 MiB", "OutputLimitError");
  auto parsed = parsePorcelainStatus(completed.out);
  if (!parsed) return sdk::Response::error(500, parsed.status().message(), "GitError");
  return sdk::Response::json(statusJson(*parsed));
}

std::string truncateDiff(std::string diff, std::size_t cap) {
  diff.resize(utf8SafeCut(diff, cap));
  diff += kTruncatedMarker;
  return diff;
}

sdk::Response gitDiff(const ToolContext& context, const sdk::Request& request) {
  auto target = gitTarget(context, request);
  if (auto* refusal = std::get_if<Refusal>(&target)) return toResponse(*refusal);
  auto staged = queryFlag(request, "staged");
  if (auto* refusal = std::get_if<Refusal>(&staged)) return toResponse(*refusal);
  const auto& where = std::get<GitTarget>(target);
  const auto timeout = policyTimeout(request.policy, kGitTimeout);

  std::vector<std::string> common = {"diff", "--no-ext-diff", "--no-textconv"};
  if (std::get<bool>(staged)) common.emplace_back("--cached");

  GitRun text_run;
  text_run.args = withPathspec(common, where);
  text_run.repo_dir = where.dir;
  text_run.timeout = timeout;
  // One byte past the cap tells a cut diff from one of exactly 1 MiB.
  text_run.max_output_bytes = kDiffBytes + 1;
  auto text = runGit(context, text_run);
  if (auto* refusal = std::get_if<Refusal>(&text)) return toResponse(*refusal);

  GitRun stat_run = text_run;
  auto stat_args = common;
  stat_args.insert(stat_args.begin() + 1, {"--numstat", "-z"});
  stat_run.args = withPathspec(stat_args, where);
  stat_run.max_output_bytes = kGitListingBytes;
  auto numstat = runGit(context, stat_run);
  if (auto* refusal = std::get_if<Refusal>(&numstat)) return toResponse(*refusal);
  const auto& stat_done = std::get<sdk::Completed>(numstat);
  if (stat_done.truncated)
    return sdk::Response::error(500, "git diff --numstat output is larger than 32 MiB",
                                "OutputLimitError");
  auto stats = parseNumstat(stat_done.out);
  if (!stats) return sdk::Response::error(500, stats.status().message(), "GitError");

  auto& text_done = std::get<sdk::Completed>(text);
  const bool truncated = text_done.truncated || text_done.out.size() > kDiffBytes;
  std::string diff =
      truncated ? truncateDiff(std::move(text_done.out), kDiffBytes) : std::move(text_done.out);
  std::string body = "{\"diff\":" + sdk::jsonQuote(diff);
  body += truncated ? ",\"truncated\":true" : ",\"truncated\":false";
  body += ",\"stats\":" + statsJson(*stats);
  body += ",\"files\":" + fileStatsJson(*stats) + "}";
  return sdk::Response::json(std::move(body));
}

}  // namespace abx::plugins::dev_tools
