// git's confinement pieces without a server: the environment of every run
// (no GIT_* from the child environment, configuration that runs nothing),
// the repository paths and the discovery ceiling judged against an allowed
// area, and the repository settings git may still see.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "git_environment.h"
#include "git_repository.h"
#include "git_session.h"
#include "git_view.h"

namespace abx::plugins::dev_tools {
namespace {

using Strings = std::vector<std::string>;
using ::testing::Contains;
using ::testing::Not;

std::string valueOf(const Strings& env, const std::string& name) {
  for (const auto& e : env)
    if (e.starts_with(name + "=")) return e.substr(name.size() + 1);
  return "<unset>";
}

TEST(GitEnvironment, DropsEveryGitVariableOfTheChild) {
  const Strings child = {"HOME=/home/u",
                         "GIT_DIR=/elsewhere",
                         "GIT_CONFIG_COUNT=1",
                         "GIT_CONFIG_KEY_0=core.fsmonitor",
                         "GIT_CONFIG_VALUE_0=touch x",
                         "GIT_CONFIG_PARAMETERS='core.pager'='x'",
                         "GIT_EXEC_PATH=/x",
                         "GIT_WORK_TREE=/w",
                         "GIT_EXTERNAL_DIFF=x",
                         "LANG=C"};
  const Strings env = gitEnvironment(child, {}, {});
  for (const char* name :
       {"GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_WORK_TREE", "GIT_EXTERNAL_DIFF"})
    EXPECT_EQ(valueOf(env, name), "<unset>") << name;
  EXPECT_EQ(valueOf(env, "HOME"), "/home/u");
  EXPECT_EQ(valueOf(env, "LANG"), "C");
  EXPECT_EQ(valueOf(env, "PATH"), "/usr/local/bin:/usr/bin:/bin");
  EXPECT_EQ(valueOf(env, "GIT_CONFIG_NOSYSTEM"), "1");
  EXPECT_EQ(valueOf(env, "GIT_CONFIG_GLOBAL"), "/dev/null");
  EXPECT_EQ(valueOf(env, "GIT_ATTR_NOSYSTEM"), "1");
  EXPECT_EQ(valueOf(env, "GIT_TERMINAL_PROMPT"), "0");
  EXPECT_EQ(valueOf(env, "GIT_OPTIONAL_LOCKS"), "0");
  // The child's GIT_CONFIG_KEY_0 is gone: index 0 is the server's own.
  EXPECT_EQ(valueOf(env, "GIT_CONFIG_KEY_0"), neutralGitConfig().front().key);
  EXPECT_THAT(env, Not(Contains("GIT_CONFIG_VALUE_0=touch x")));
}

TEST(GitEnvironment, ConfigurationIsNumberedInOrder) {
  const Strings env =
      gitEnvironment({"PATH=/bin"}, {{"status.renames", "false"}}, {"GIT_DIR=/r/.git"});
  const auto& neutral = neutralGitConfig();
  const std::size_t n = neutral.size() + 1;
  EXPECT_EQ(valueOf(env, "GIT_CONFIG_COUNT"), std::to_string(n));
  for (std::size_t i = 0; i < neutral.size(); ++i) {
    EXPECT_EQ(valueOf(env, "GIT_CONFIG_KEY_" + std::to_string(i)), neutral[i].key);
    EXPECT_EQ(valueOf(env, "GIT_CONFIG_VALUE_" + std::to_string(i)), neutral[i].value);
  }
  EXPECT_EQ(valueOf(env, "GIT_CONFIG_KEY_" + std::to_string(n - 1)), "status.renames");
  EXPECT_EQ(valueOf(env, "GIT_DIR"), "/r/.git");
  EXPECT_EQ(valueOf(env, "PATH"), "/bin");
  // What runs programs is switched off.
  auto has = [&](const std::string& key, const std::string& value) {
    return std::find(neutral.begin(), neutral.end(), GitConfigEntry{key, value}) != neutral.end();
  };
  EXPECT_TRUE(has("core.fsmonitor", "false"));
  EXPECT_TRUE(has("core.hooksPath", "/dev/null"));
  EXPECT_TRUE(has("protocol.allow", "never"));
  EXPECT_TRUE(has("submodule.recurse", "false"));
}

TEST(GitRepositoryPaths, ParsesRevParse) {
  auto repo = parseRepositoryPaths("/w\n/w/.git\n/w/.git");
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->top_level, "/w");
  EXPECT_EQ(repo->git_dir, "/w/.git");
  EXPECT_FALSE(parseRepositoryPaths("/w\n.git\n.git"));
  EXPECT_FALSE(parseRepositoryPaths("/w\n/w/.git"));
  EXPECT_FALSE(parseRepositoryPaths(""));
}

TEST(GitRepositoryPaths, CeilingIsAboveTheHighestAllowedAncestor) {
  auto under = [](std::string root) {
    return [root](const std::string& p) { return isWithin(p, root); };
  };
  EXPECT_EQ(discoveryCeiling("/home/user/a/b", under("/home/user")), "/home");
  EXPECT_EQ(discoveryCeiling("/home/user", under("/home/user")), "/home");
  EXPECT_EQ(discoveryCeiling("/srv/x", under("/srv/x")), "/srv");
  EXPECT_EQ(discoveryCeiling("/a", under("/a")), "/");
  EXPECT_TRUE(isWithin("/a/b", "/a"));
  EXPECT_FALSE(isWithin("/ab", "/a"));
}

class GitConfine : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-confine-XXXXXX";
    ASSERT_TRUE(::mkdtemp(tmpl));
    root_ = tmpl;
    for (const char* d :
         {"/area/repo/.git/objects/info", "/area/repo/sub", "/outside/.git/objects"})
      std::filesystem::create_directories(root_ + d);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  AllowedPath area() const {
    return [area = root_ + "/area"](const std::string& p) { return isWithin(p, area); };
  }
  GitRepository repo(const std::string& top, const std::string& git) const {
    return {root_ + top, root_ + git, root_ + git};
  }
  std::string root_;
};

TEST_F(GitConfine, AcceptsARepositoryInsideTheArea) {
  auto r = repo("/area/repo", "/area/repo/.git");
  EXPECT_FALSE(confineRepository(r, root_ + "/area/repo/sub", area()));
}

TEST_F(GitConfine, RefusesWhatLiesOutside) {
  auto top = repo("/outside", "/outside/.git");
  auto refusal = confineRepository(top, root_ + "/outside", area());
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 403);
  EXPECT_EQ(refusal->code, "path_not_allowed");
  auto git_dir = repo("/area/repo", "/outside/.git");
  EXPECT_TRUE(confineRepository(git_dir, root_ + "/area/repo", area()));
  // The object store through a link, and an alternate outside.
  std::filesystem::remove_all(root_ + "/area/repo/.git/objects");
  std::filesystem::create_directory_symlink(root_ + "/outside/.git/objects",
                                            root_ + "/area/repo/.git/objects");
  auto linked = repo("/area/repo", "/area/repo/.git");
  EXPECT_TRUE(confineRepository(linked, root_ + "/area/repo", area()));
  std::filesystem::remove(root_ + "/area/repo/.git/objects");
  std::filesystem::create_directories(root_ + "/area/repo/.git/objects/info");
  std::ofstream(root_ + "/area/repo/.git/objects/info/alternates")
      << root_ << "/outside/.git/objects\n";
  auto alternate = repo("/area/repo", "/area/repo/.git");
  auto why = confineRepository(alternate, root_ + "/area/repo", area());
  ASSERT_TRUE(why);
  EXPECT_THAT(why->message, ::testing::HasSubstr("alternate"));
  // A requested directory outside the work tree (core.worktree moved it).
  std::filesystem::remove(root_ + "/area/repo/.git/objects/info/alternates");
  auto moved = repo("/area/repo/sub", "/area/repo/.git");
  auto other = confineRepository(moved, root_ + "/area/repo", area());
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 400);
}

TEST(GitView, KeepsOnlySettingsThatRunNothing) {
  std::string list;
  for (const char* entry :
       {"core.repositoryformatversion\n1", "extensions.objectformat\nsha256",
        "core.fsmonitor\ntouch x", "core.hookspath\n/x", "core.filemode\nfalse",
        "filter.evil.clean\ntouch x", "diff.evil.textconv\nx", "include.path\n/etc/x",
        "core.pager\nx", "status.showuntrackedfiles\nall", "branch.main.remote\norigin",
        "branch.main.merge\nrefs/heads/main", "remote.origin.fetch\n+refs/heads/*:refs/x/*",
        "remote.origin.uploadpack\nx", "core.sshcommand\nx", "core.symlinks"})
    list += std::string(entry) + '\0';
  auto config = safeRepositoryConfig(list);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->format_version, "1");
  EXPECT_EQ(config->object_format, "sha256");
  const std::vector<GitConfigEntry> expected = {{"core.filemode", "false"},
                                                {"status.showuntrackedfiles", "all"},
                                                {"branch.main.remote", "origin"},
                                                {"branch.main.merge", "refs/heads/main"},
                                                {"remote.origin.fetch", "+refs/heads/*:refs/x/*"},
                                                {"core.symlinks", "true"}};
  EXPECT_EQ(config->settings, expected);
  EXPECT_FALSE(safeRepositoryConfig(std::string("core.repositoryformatversion\n2") + '\0'));
  EXPECT_FALSE(safeRepositoryConfig(std::string("extensions.objectformat\nmd5") + '\0'));
}

TEST(GitView, APrivateCommonDirectoryRemovedAfterUse) {
  char tmpl[] = "/tmp/abx-view-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string root = tmpl;
  std::filesystem::create_directories(root + "/repo/.git/objects");
  std::filesystem::create_directories(root + "/repo/.git/refs");
  std::ofstream(root + "/repo/.git/config") << "[core]\n\tfsmonitor = x\n";
  GitRepository repo{root + "/repo", root + "/repo/.git", root + "/repo/.git"};
  SafeRepositoryConfig config;
  config.object_format = "sha256";
  config.format_version = "1";
  std::string dir;
  {
    auto view = GitView::create(root + "/views", repo, config);
    ASSERT_TRUE(view) << view.status().message();
    dir = (*view)->commonDir();
    EXPECT_TRUE(dir.starts_with(root + "/views/view-"));
    std::ifstream in(dir + "/config");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text,
              "[core]\n\trepositoryformatversion = 1\n\tbare = false\n"
              "[extensions]\n\tobjectformat = sha256\n");
    EXPECT_EQ(std::filesystem::read_symlink(dir + "/objects"), root + "/repo/.git/objects");
    EXPECT_TRUE(std::filesystem::is_symlink(dir + "/refs"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/hooks"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_TRUE(std::filesystem::exists(root + "/repo/.git/objects"));  // links removed, not targets
  std::filesystem::remove_all(root);
}

TEST(GitPathspecs, LiteralFromTheTop) {
  EXPECT_EQ(literalPathspec("a b/*.c"), ":(top,literal)a b/*.c");
  EXPECT_EQ(excludedPathspec(".env"), ":(top,literal,exclude).env");
}

TEST(GitPathspecs, EveryRunIsScopedToTheRequestedPath) {
  EXPECT_EQ(scopedGitArgs({"status", "-z"}, "", {}), (Strings{"status", "-z"}));
  EXPECT_EQ(scopedGitArgs({"diff"}, "sub/a.txt", {}),
            (Strings{"diff", "--", ":(top,literal)sub/a.txt"}));
  EXPECT_EQ(scopedGitArgs({"diff"}, "", {":(top,literal,exclude).env"}),
            (Strings{"diff", "--", ":(top,literal,exclude).env"}));
  EXPECT_EQ(scopedGitArgs({"diff"}, "-x", {":(top,literal,exclude)-x/.env"}),
            (Strings{"diff", "--", ":(top,literal)-x", ":(top,literal,exclude)-x/.env"}));
  EXPECT_EQ(gitArgv({"status"}), (Strings{"git", "--no-pager", "-c", "color.ui=never", "status"}));
}

}  // namespace
}  // namespace abx::plugins::dev_tools
