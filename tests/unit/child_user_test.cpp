// Subprocess's child user: children (piped and on a terminal) run as the
// configured user with its HOME/USER/LOGNAME, plugin-chosen HOMEs survive,
// files are handed over, and clearing it restores the server's user. The
// suite needs root (the tests run as root); elsewhere it skips.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "abx/sdk/subprocess.h"
#include "support/terminal_output.h"

namespace {

using abx::sdk::SpawnOptions;
using abx::sdk::Subprocess;
using abx::sdk::TerminalSize;
using ::testing::HasSubstr;

class ChildUser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root";
    nobody = ::getpwnam("nobody");
    ASSERT_NE(nobody, nullptr);
    ASSERT_TRUE(Subprocess::setChildUser("nobody").isOk());
  }
  void TearDown() override { Subprocess::setChildUser(""); }

  std::string run(const std::string& script, std::vector<std::string> env = {}) {
    SpawnOptions o;
    o.argv = {"/bin/sh", "-c", script};
    o.env = std::move(env);
    o.env.push_back("PATH=/usr/bin:/bin");
    auto done = Subprocess::run(o);
    EXPECT_TRUE(done.isOk()) << done.status().message();
    return done.isOk() ? done->out + done->err : std::string();
  }

  passwd* nobody = nullptr;
};

TEST_F(ChildUser, ChildrenRunAsThatUserWithItsHome) {
  auto out =
      run("id -u; id -g; echo $HOME $USER $LOGNAME",
          {"HOME=" + std::string(::getenv("HOME") ? ::getenv("HOME") : "/root"), "USER=root"});
  EXPECT_THAT(out, HasSubstr(std::to_string(nobody->pw_uid) + "\n" +
                             std::to_string(nobody->pw_gid) + "\n"));
  EXPECT_THAT(out, HasSubstr(std::string(nobody->pw_dir) + " nobody nobody"));
}

TEST_F(ChildUser, APluginChosenHomeStays) {
  EXPECT_THAT(run("echo $HOME", {"HOME=/tmp/profile-x"}), HasSubstr("/tmp/profile-x"));
}

TEST_F(ChildUser, NoPrivilegeToRegain) {
  auto out = run("cat /proc/self/status | grep -E '^(Uid|Gid|Groups|CapEff):'");
  EXPECT_THAT(out, HasSubstr("Uid:\t65534\t65534\t65534\t65534"));
  EXPECT_THAT(out, HasSubstr("CapEff:\t0000000000000000"));
  EXPECT_THAT(out, ::testing::Not(HasSubstr("Groups:\t0")));
}

TEST_F(ChildUser, ExecFailuresAreReportedAsSpawnErrors) {
  SpawnOptions o;
  o.argv = {"/definitely/not/here"};
  auto missing = Subprocess::spawn(o);
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().type(), "FileNotFoundError");
  // A program only root may run.
  auto dir = std::filesystem::temp_directory_path() / "abx-child-user-test";
  std::filesystem::create_directories(dir);
  auto prog = dir / "root-only";
  {
    int fd = ::open(prog.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0700);
    ::write(fd, "#!/bin/sh\n", 10);
    ::close(fd);
  }
  o.argv = {prog.string()};
  auto denied = Subprocess::spawn(o);
  ASSERT_FALSE(denied.isOk());
  EXPECT_EQ(denied.status().type(), "PermissionError");
  std::filesystem::remove_all(dir);
}

TEST_F(ChildUser, GiveToChildUserHandsAFileOver) {
  auto path = std::filesystem::temp_directory_path() / "abx-child-user-give";
  std::filesystem::create_directory(path);
  ASSERT_TRUE(Subprocess::giveToChildUser(path.string()).isOk());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, nobody->pw_uid);
  std::filesystem::remove_all(path);
}

TEST_F(ChildUser, TerminalChildrenToo) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "id -u; tty; ls -ln \"$(tty)\""};
  o.env = {"PATH=/usr/bin:/bin"};
  o.cwd = "/";
  o.terminal = TerminalSize{};
  auto p = Subprocess::spawn(o);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  const std::string out = abx::testing::readTerminalOutput(p->terminalFd());
  EXPECT_EQ(p->wait(), 0);
  EXPECT_THAT(out, HasSubstr(std::to_string(nobody->pw_uid) + "\r\n"));
  EXPECT_THAT(out, HasSubstr("/dev/pts/"));  // the terminal is its controlling one
  // ... and it belongs to the child user, like a login's.
  EXPECT_THAT(out, HasSubstr(" " + std::to_string(nobody->pw_uid) + " "));
}

TEST_F(ChildUser, RootAndUnknownUsersAreRefused) {
  EXPECT_EQ(Subprocess::setChildUser("root").type(), "ValueError");
  EXPECT_EQ(Subprocess::setChildUser("no-such-user-xyz").type(), "ValueError");
}

TEST_F(ChildUser, ClearingRestoresTheServersUser) {
  Subprocess::setChildUser("");
  EXPECT_FALSE(Subprocess::childUser());
  EXPECT_THAT(run("id -u"), HasSubstr("0\n"));
}

}  // namespace
