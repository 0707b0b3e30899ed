#include "git_status_parse.h"

#include <charconv>

#include "abx/sdk/json.h"
#include "nul_fields.h"

namespace abx::plugins::dev_tools {
namespace {

int countAfter(std::string_view text, std::string_view label) {
  auto at = text.find(label);
  if (at == std::string_view::npos) return 0;
  int n = 0;
  const char* first = text.data() + at + label.size();
  std::from_chars(first, text.data() + text.size(), n);
  return n;
}

// "## main...origin/main [ahead 1, behind 2]", "## No commits yet on main",
// "## HEAD (no branch)", "## main".
void parseBranch(std::string_view line, RepoStatus& out) {
  constexpr std::string_view kNoCommits = "No commits yet on ";
  constexpr std::string_view kInitial = "Initial commit on ";  // git < 2.16
  if (line.starts_with(kNoCommits)) {
    out.branch = line.substr(kNoCommits.size());
    return;
  }
  if (line.starts_with(kInitial)) {
    out.branch = line.substr(kInitial.size());
    return;
  }
  if (line.starts_with("HEAD (no branch)")) {
    out.branch = "HEAD";
    return;
  }
  std::string_view tracking;
  if (auto bracket = line.find(" ["); bracket != std::string_view::npos) {
    tracking = line.substr(bracket + 2);
    line = line.substr(0, bracket);
  }
  if (auto dots = line.find("..."); dots != std::string_view::npos) {
    out.upstream = std::string(line.substr(dots + 3));
    line = line.substr(0, dots);
  }
  out.branch = line;
  out.ahead = countAfter(tracking, "ahead ");
  out.behind = countAfter(tracking, "behind ");
}

}  // namespace

std::string statusWord(char x, char y) {
  if (x == '?' && y == '?') return "untracked";
  // Both sides changed in a merge: DD, AU, UD, UA, DU, AA, UU.
  if (x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D')) return "unmerged";
  if (x == 'R' || y == 'R') return "renamed";
  if (x == 'C' || y == 'C') return "copied";
  if (x == 'A' || y == 'A') return "added";
  if (x == 'D' || y == 'D') return "deleted";
  return "modified";
}

sdk::Result<RepoStatus> parsePorcelainStatus(std::string_view output) {
  RepoStatus status;
  NulFields fields(output);
  while (auto record = fields.next()) {
    if (record->starts_with("## ")) {
      parseBranch(record->substr(3), status);
      continue;
    }
    if (record->size() < 4 || (*record)[2] != ' ')
      return sdk::Status::error("Unexpected git status record: " + std::string(*record),
                                "ValueError");
    StatusEntry entry;
    entry.index = (*record)[0];
    entry.worktree = (*record)[1];
    entry.path = record->substr(3);
    entry.status = statusWord(entry.index, entry.worktree);
    if (entry.index == 'R' || entry.index == 'C' || entry.worktree == 'R' ||
        entry.worktree == 'C') {
      auto from = fields.next();
      if (!from)
        return sdk::Status::error("git status rename without its source: " + entry.path,
                                  "ValueError");
      entry.original_path = std::string(*from);
    }
    status.files.push_back(std::move(entry));
  }
  return status;
}

std::string statusJson(const RepoStatus& status) {
  sdk::JsonWriter w;
  w.beginObject()
      .member("branch", status.branch)
      .member("clean", status.files.empty())
      .key("files")
      .beginArray();
  for (const auto& f : status.files) {
    w.beginObject()
        .member("path", f.path)
        .member("status", f.status)
        .member("index", std::string_view(&f.index, 1))
        .member("worktree", std::string_view(&f.worktree, 1))
        .optionalMember("original_path", f.original_path)
        .endObject();
  }
  w.endArray()
      .member("upstream", status.upstream)
      .member("ahead", status.ahead)
      .member("behind", status.behind)
      .endObject();
  return w.take();
}

}  // namespace abx::plugins::dev_tools
