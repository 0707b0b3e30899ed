// The parsers of git's machine formats: `git status --porcelain=v1 -b -z`
// (branch header, every XY status word, renames with their source, names
// holding spaces and newlines) and `git diff --numstat -z` (counts, binary
// files, renames), plus their JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "git_numstat_parse.h"
#include "git_status_parse.h"

namespace abx::plugins::dev_tools {
namespace {

using namespace std::string_literals;
using ::testing::HasSubstr;

TEST(StatusWord, MapsEveryPorcelainCode) {
  EXPECT_EQ(statusWord('?', '?'), "untracked");
  EXPECT_EQ(statusWord(' ', 'M'), "modified");
  EXPECT_EQ(statusWord('M', ' '), "modified");
  EXPECT_EQ(statusWord('T', ' '), "modified");
  EXPECT_EQ(statusWord('A', ' '), "added");
  EXPECT_EQ(statusWord('A', 'M'), "added");
  EXPECT_EQ(statusWord(' ', 'D'), "deleted");
  EXPECT_EQ(statusWord('D', ' '), "deleted");
  EXPECT_EQ(statusWord('R', ' '), "renamed");
  EXPECT_EQ(statusWord('R', 'M'), "renamed");
  EXPECT_EQ(statusWord('C', ' '), "copied");
  for (auto [x, y] : {std::pair{'D', 'D'},
                      {'A', 'U'},
                      {'U', 'D'},
                      {'U', 'A'},
                      {'D', 'U'},
                      {'A', 'A'},
                      {'U', 'U'}})
    EXPECT_EQ(statusWord(x, y), "unmerged") << x << y;
}

TEST(PorcelainStatus, ParsesBranchRenamesAndOddNames) {
  const std::string out =
      "## main...origin/main [ahead 2, behind 1]\0"s
      " M app.py\0"s
      "R  new name.txt\0old name.txt\0"s
      "?? line\nbreak.txt\0"s
      "A  added.c\0"s
      " D gone.md\0"s
      "UU conflict.txt\0"s;
  auto parsed = parsePorcelainStatus(out);
  ASSERT_TRUE(parsed) << parsed.status().message();
  EXPECT_EQ(parsed->branch, "main");
  EXPECT_EQ(parsed->upstream, "origin/main");
  EXPECT_EQ(parsed->ahead, 2);
  EXPECT_EQ(parsed->behind, 1);
  ASSERT_EQ(parsed->files.size(), 6u);
  EXPECT_EQ(parsed->files[0].path, "app.py");
  EXPECT_EQ(parsed->files[0].status, "modified");
  EXPECT_EQ(parsed->files[1].path, "new name.txt");
  EXPECT_EQ(parsed->files[1].status, "renamed");
  EXPECT_EQ(parsed->files[1].original_path, "old name.txt");
  EXPECT_EQ(parsed->files[2].path, "line\nbreak.txt");
  EXPECT_EQ(parsed->files[2].status, "untracked");
  EXPECT_EQ(parsed->files[3].status, "added");
  EXPECT_EQ(parsed->files[4].status, "deleted");
  EXPECT_EQ(parsed->files[5].status, "unmerged");

  const auto json = statusJson(*parsed);
  EXPECT_THAT(json, HasSubstr(R"("branch":"main","clean":false)"));
  EXPECT_THAT(json, HasSubstr(R"({"path":"line\nbreak.txt","status":"untracked")"));
  EXPECT_THAT(json, HasSubstr(R"("original_path":"old name.txt")"));
  EXPECT_THAT(json, HasSubstr(R"("upstream":"origin/main","ahead":2,"behind":1})"));
}

TEST(PorcelainStatus, BranchHeaderForms) {
  auto fresh = parsePorcelainStatus("## No commits yet on trunk\0"s);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->branch, "trunk");
  EXPECT_TRUE(fresh->files.empty());
  EXPECT_THAT(statusJson(*fresh), HasSubstr(R"("clean":true,"files":[],"upstream":null)"));
  auto detached = parsePorcelainStatus("## HEAD (no branch)\0"s);
  ASSERT_TRUE(detached);
  EXPECT_EQ(detached->branch, "HEAD");
  auto plain = parsePorcelainStatus("## feature/x\0"s);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->branch, "feature/x");
  EXPECT_FALSE(plain->upstream);
  auto gone = parsePorcelainStatus("## main...origin/main [gone]\0"s);
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->ahead, 0);
  EXPECT_EQ(gone->upstream, "origin/main");
}

TEST(PorcelainStatus, RejectsMalformedRecords) {
  EXPECT_FALSE(parsePorcelainStatus("XYZ\0"s));
  EXPECT_FALSE(parsePorcelainStatus("R  only-target\0"s));  // the source is missing
}

TEST(Numstat, CountsLinesBinaryAndRenames) {
  const std::string out =
      "3\t1\tapp.py\0"s
      "-\t-\timage.png\0"s
      "0\t0\t\0old name.txt\0new name.txt\0"s
      "10\t0\tline\nbreak.txt\0"s;
  auto stats = parseNumstat(out);
  ASSERT_TRUE(stats) << stats.status().message();
  ASSERT_EQ(stats->files.size(), 4u);
  EXPECT_EQ(stats->insertions, 13u);
  EXPECT_EQ(stats->deletions, 1u);
  EXPECT_TRUE(stats->files[1].binary);
  EXPECT_EQ(stats->files[2].path, "new name.txt");
  EXPECT_EQ(stats->files[2].original_path, "old name.txt");
  EXPECT_EQ(stats->files[3].path, "line\nbreak.txt");
  EXPECT_EQ(statsJson(*stats), R"({"files_changed":4,"insertions":13,"deletions":1})");
  EXPECT_THAT(fileStatsJson(*stats),
              HasSubstr(R"({"path":"image.png","insertions":0,"deletions":0,"binary":true})"));
}

TEST(Numstat, EmptyAndMalformed) {
  auto none = parseNumstat("");
  ASSERT_TRUE(none);
  EXPECT_EQ(statsJson(*none), R"({"files_changed":0,"insertions":0,"deletions":0})");
  EXPECT_FALSE(parseNumstat("x\t1\tf\0"s));
  EXPECT_FALSE(parseNumstat("1\t1\0"s));
  EXPECT_FALSE(parseNumstat("1\t1\t\0only-from\0"s));
}

}  // namespace
}  // namespace abx::plugins::dev_tools
