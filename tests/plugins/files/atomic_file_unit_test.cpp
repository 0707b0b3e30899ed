// AtomicFile: the target appears whole or not at all; a failed or
// abandoned write leaves no temporary file and the old target untouched.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "atomic_file.h"

namespace abx::plugins::files {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/abx-atomic-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    dir_fd_ = Fd(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
    ASSERT_TRUE(dir_fd_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string read(const std::string& name) {
    std::ifstream in(dir_ + "/" + name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::vector<std::string> names() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_;
  Fd dir_fd_;
};

TEST_F(AtomicFileTest, CommitPutsTheWholeFileInPlaceWithMode0644) {
  auto f = AtomicFile::create(dir_fd_.get());
  ASSERT_TRUE(f) << f.status().message();
  EXPECT_TRUE(f->tempName().starts_with(".abx-tmp-"));
  struct stat st;
  ASSERT_EQ(::fstat(f->fd(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // private while being written
  EXPECT_FALSE(fs::exists(dir_ + "/target"));
  ASSERT_TRUE(f->write(std::string("hello\0world", 11)));
  ASSERT_TRUE(f->commit("target", true));
  EXPECT_EQ(read("target"), std::string("hello\0world", 11));
  ASSERT_EQ(::stat((dir_ + "/target").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  EXPECT_EQ(names(), std::vector<std::string>{"target"});
}

TEST_F(AtomicFileTest, AnAbandonedWriteLeavesTheOldTargetAndNoTemporary) {
  std::ofstream(dir_ + "/target") << "old";
  {
    auto f = AtomicFile::create(dir_fd_.get());
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write("half of the new cont"));
    EXPECT_EQ(names().size(), 2u);
  }  // destroyed before commit: the upload failed
  EXPECT_EQ(read("target"), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"target"});
}

TEST_F(AtomicFileTest, NoOverwriteRefusesAnExistingTarget) {
  std::ofstream(dir_ + "/target") << "old";
  {
    auto f = AtomicFile::create(dir_fd_.get());
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write("new"));
    auto s = f->commit("target", false);
    EXPECT_FALSE(s);
    EXPECT_EQ(s.type(), "FileExistsError");
  }
  EXPECT_EQ(read("target"), "old");
  EXPECT_EQ(names(), std::vector<std::string>{"target"});
}

TEST_F(AtomicFileTest, AFailedRenameKeepsTheTargetAndCleansUp) {
  fs::create_directory(dir_ + "/target");
  std::ofstream(dir_ + "/target/inside") << "x";
  {
    auto f = AtomicFile::create(dir_fd_.get());
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write("new"));
    EXPECT_FALSE(f->commit("target", true));  // a non-empty directory
  }
  EXPECT_TRUE(fs::is_directory(dir_ + "/target"));
  EXPECT_EQ(read("target/inside"), "x");
  EXPECT_EQ(names(), std::vector<std::string>{"target"});
}

TEST_F(AtomicFileTest, CommitIntoAnotherDirectory) {
  fs::create_directory(dir_ + "/other");
  Fd other(::open((dir_ + "/other").c_str(), O_RDONLY | O_DIRECTORY));
  auto f = AtomicFile::create(dir_fd_.get());
  ASSERT_TRUE(f);
  ASSERT_TRUE(f->write("moved"));
  ASSERT_TRUE(f->commitInto(other.get(), "t", true));
  EXPECT_EQ(read("other/t"), "moved");
  EXPECT_EQ(names(), std::vector<std::string>{"other"});
}

TEST_F(AtomicFileTest, RenameAtNoReplaceAndMissingSource) {
  std::ofstream(dir_ + "/a") << "a";
  std::ofstream(dir_ + "/b") << "b";
  auto s = renameAt(dir_fd_.get(), "a", dir_fd_.get(), "b", false);
  EXPECT_EQ(s.type(), "FileExistsError");
  EXPECT_TRUE(renameAt(dir_fd_.get(), "a", dir_fd_.get(), "b", true));
  EXPECT_EQ(read("b"), "a");
  s = renameAt(dir_fd_.get(), "missing", dir_fd_.get(), "c", true);
  EXPECT_EQ(s.type(), "OSError");
  EXPECT_TRUE(s.message().starts_with("No such file or directory"));
}

}  // namespace
}  // namespace abx::plugins::files
