#include "git_routes.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "abx/sdk/json.h"
#include "abx/sdk/utf8.h"
#include "git_command.h"
#include "git_numstat_parse.h"
#include "git_session.h"
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

/** Whether the endpoint's PathGuard refuses a name git reported (relative to @p top). */
class DeniedPaths {
 public:
  DeniedPaths(const ToolContext& context, const std::string& endpoint, const std::string& top)
      : context_(context), endpoint_(endpoint), top_(top) {}
  bool operator()(std::string name) const {
    while (name.size() > 1 && name.back() == '/') name.pop_back();  // untracked "dir/"
    return !context_.paths ||
           !context_.paths->check(endpoint_, top_ + "/" + name, sdk::PathOp::read).allowed;
  }

 private:
  const ToolContext& context_;
  const std::string& endpoint_;
  const std::string& top_;
};

std::variant<DiffStats, sdk::HttpError> diffStats(const GitSession& session,
                                                  const std::vector<std::string>& args,
                                                  const std::vector<std::string>& excluded) {
  auto done = session.run(args, kGitListingBytes, excluded);
  if (auto* refusal = std::get_if<sdk::HttpError>(&done)) return *refusal;
  const auto& completed = std::get<sdk::Completed>(done);
  if (completed.truncated)
    return sdk::HttpError{
        500, "git diff --numstat output is larger than 32 MiB", "OutputLimitError", {}};
  auto stats = parseNumstat(completed.out);
  if (!stats) return sdk::HttpError{500, stats.status().message(), "GitError", {}};
  return std::move(*stats);
}

}  // namespace

std::variant<GitTarget, sdk::HttpError> gitTarget(const ToolContext& context,
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
  if (auto* refusal = std::get_if<sdk::HttpError>(&dir)) return *refusal;
  return GitTarget{std::get<std::string>(dir), std::nullopt};
}

std::variant<bool, sdk::HttpError> queryFlag(const sdk::Request& request, std::string_view name) {
  auto value = request.queryParam(name);
  if (!value) return false;
  const auto text = lower(*value);
  if (text == "true" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "no" || text.empty()) return false;
  return sdk::HttpError::badRequest("Query parameter '" + std::string(name) +
                                    "' must be true or false");
}

sdk::Response gitStatus(const ToolContext& context, const sdk::Request& request) {
  auto target = gitTarget(context, request);
  if (auto* refusal = std::get_if<sdk::HttpError>(&target)) return refusal->toResponse();
  auto opened = GitSession::open(context, request.endpoint, std::get<GitTarget>(target),
                                 sdk::policyTimeout(request.policy).value_or(kGitTimeout));
  if (auto* refusal = std::get_if<sdk::HttpError>(&opened)) return refusal->toResponse();
  const auto& session = *std::get<std::unique_ptr<GitSession>>(opened);
  auto done = session.run({"status", "--porcelain=v1", "-b", "-z", "--ignore-submodules=dirty"},
                          kGitListingBytes);
  if (auto* refusal = std::get_if<sdk::HttpError>(&done)) return refusal->toResponse();
  const auto& completed = std::get<sdk::Completed>(done);
  if (completed.truncated)
    return sdk::Response::error(500, "git status output is larger than 32 MiB", "OutputLimitError");
  auto parsed = parsePorcelainStatus(completed.out);
  if (!parsed) return sdk::Response::error(500, parsed.status().message(), "GitError");
  const DeniedPaths denied(context, request.endpoint, session.repository().top_level);
  std::erase_if(parsed->files, [&](const StatusEntry& e) {
    return denied(e.path) || (e.original_path && denied(*e.original_path));
  });
  return sdk::Response::json(statusJson(*parsed));
}

std::string truncateDiff(std::string diff, std::size_t cap) {
  diff.resize(sdk::utf8SafeCut(diff, cap));
  diff += kTruncatedMarker;
  return diff;
}

sdk::Response gitDiff(const ToolContext& context, const sdk::Request& request) {
  auto target = gitTarget(context, request);
  if (auto* refusal = std::get_if<sdk::HttpError>(&target)) return refusal->toResponse();
  auto staged = queryFlag(request, "staged");
  if (auto* refusal = std::get_if<sdk::HttpError>(&staged)) return refusal->toResponse();
  auto opened = GitSession::open(context, request.endpoint, std::get<GitTarget>(target),
                                 sdk::policyTimeout(request.policy).value_or(kGitTimeout));
  if (auto* refusal = std::get_if<sdk::HttpError>(&opened)) return refusal->toResponse();
  const auto& session = *std::get<std::unique_ptr<GitSession>>(opened);

  std::vector<std::string> common = {"diff", "--no-ext-diff", "--no-textconv",
                                     "--ignore-submodules=dirty"};
  if (std::get<bool>(staged)) common.emplace_back("--cached");
  auto stat_args = common;
  stat_args.insert(stat_args.begin() + 1, {"--numstat", "-z"});
  auto stats = diffStats(session, stat_args, {});
  if (auto* refusal = std::get_if<sdk::HttpError>(&stats)) return refusal->toResponse();
  // Files the PathGuard denies (a `paths.deny` rule inside the work tree)
  // are left out of both the text and the statistics.
  const DeniedPaths denied(context, request.endpoint, session.repository().top_level);
  std::vector<std::string> excluded;
  for (const auto& file : std::get<DiffStats>(stats).files)
    for (const auto* name : {&file.path, file.original_path ? &*file.original_path : nullptr})
      if (name && denied(*name)) excluded.push_back(excludedPathspec(*name));
  if (!excluded.empty()) {
    stats = diffStats(session, stat_args, excluded);
    if (auto* refusal = std::get_if<sdk::HttpError>(&stats)) return refusal->toResponse();
  }

  // One byte past the cap tells a cut diff from one of exactly 1 MiB.
  auto text = session.run(common, kDiffBytes + 1, excluded);
  if (auto* refusal = std::get_if<sdk::HttpError>(&text)) return refusal->toResponse();
  auto& text_done = std::get<sdk::Completed>(text);
  const bool truncated = text_done.truncated || text_done.out.size() > kDiffBytes;
  std::string diff =
      truncated ? truncateDiff(std::move(text_done.out), kDiffBytes) : std::move(text_done.out);
  sdk::JsonWriter body(diff.size() + 256);
  body.beginObject()
      .member("diff", diff)
      .member("truncated", truncated)
      .key("stats")
      .raw(statsJson(std::get<DiffStats>(stats)))
      .key("files")
      .raw(fileStatsJson(std::get<DiffStats>(stats)))
      .endObject();
  return sdk::Response::json(body.take());
}

}  // namespace abx::plugins::dev_tools
