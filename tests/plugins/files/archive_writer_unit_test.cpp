// ArchiveWriter: tar.gz and zip read back with libarchive (names, types,
// contents, links), hostile names, the size cap, and a file that shrank.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <string>

#include "archive_writer.h"
#include "atomic_file.h"

namespace abx::plugins::files {
namespace {

struct Member {
  unsigned type = 0;
  std::string data;
  std::string link;
};

std::map<std::string, Member> readArchive(int fd) {
  std::map<std::string, Member> out;
  ::lseek(fd, 0, SEEK_SET);
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  EXPECT_EQ(archive_read_open_fd(a, fd, 10240), ARCHIVE_OK) << archive_error_string(a);
  struct archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    Member m;
    m.type = archive_entry_filetype(e);
    if (const char* l = archive_entry_symlink(e)) m.link = l;
    char buf[4096];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0)
      m.data.append(buf, static_cast<std::size_t>(n));
    out[archive_entry_pathname(e)] = m;
  }
  archive_read_free(a);
  return out;
}

Fd scratch() { return Fd(::open("/tmp", O_TMPFILE | O_RDWR, 0600)); }

Fd fileWith(const std::string& content) {
  Fd fd = scratch();
  EXPECT_TRUE(writeAll(fd.get(), content));
  return fd;
}

struct stat statOf(int fd) {
  struct stat st;
  ::fstat(fd, &st);
  return st;
}

class ArchiveWriterTest : public ::testing::TestWithParam<ArchiveFormat> {};

TEST_P(ArchiveWriterTest, MembersReadBackWithLibarchive) {
  Fd out = scratch();
  auto w = ArchiveWriter::open(out.get(), GetParam(), 1u << 20);
  ASSERT_TRUE(w) << w.status().message();
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  Fd f = fileWith(binary);
  struct stat dir_st = statOf(f.get());
  dir_st.st_mode = S_IFDIR | 0755;
  ASSERT_TRUE((*w)->addDirectory("root", dir_st));
  ASSERT_TRUE((*w)->addFile("root/bin.dat", statOf(f.get()), f.get()));
  ASSERT_TRUE((*w)->addFile("root/new\nline \xff\xfe.txt", statOf(f.get()), f.get()));
  ASSERT_TRUE((*w)->addSymlink("root/link", "bin.dat", statOf(f.get())));
  ASSERT_TRUE((*w)->close());
  EXPECT_EQ((*w)->bytesWritten(), static_cast<std::uint64_t>(::lseek(out.get(), 0, SEEK_END)));

  auto members = readArchive(out.get());
  ASSERT_EQ(members.size(), 4u);
  EXPECT_EQ(members["root/"].type + members["root"].type, unsigned(AE_IFDIR));
  EXPECT_EQ(members["root/bin.dat"].data, binary);
  EXPECT_EQ(members["root/new\nline \xff\xfe.txt"].data, binary);
  EXPECT_EQ(members["root/link"].type, unsigned(AE_IFLNK));
  EXPECT_EQ(members["root/link"].link, "bin.dat");
}

TEST_P(ArchiveWriterTest, TheSizeCapStopsTheArchive) {
  Fd out = scratch();
  auto w = ArchiveWriter::open(out.get(), GetParam(), 4096);
  ASSERT_TRUE(w);
  std::string noise;
  for (int i = 0; i < 200000; ++i) noise += static_cast<char>((i * 2654435761u) >> 13);
  Fd f = fileWith(noise);
  auto s = (*w)->addFile("big", statOf(f.get()), f.get());
  if (s) s = (*w)->close();
  EXPECT_FALSE(s);
  EXPECT_EQ(s.type(), "ArchiveTooLarge");
  EXPECT_LE((*w)->bytesWritten(), 4096u);
}

TEST_P(ArchiveWriterTest, AFileThatShrankIsPaddedNotMisframed) {
  Fd out = scratch();
  auto w = ArchiveWriter::open(out.get(), GetParam(), 1u << 20);
  ASSERT_TRUE(w);
  Fd f = fileWith("short");
  struct stat st = statOf(f.get());
  st.st_size = 10;  // it was 10 bytes when listed
  ASSERT_TRUE((*w)->addFile("a", st, f.get()));
  ASSERT_TRUE((*w)->addFile("b", statOf(f.get()), f.get()));
  ASSERT_TRUE((*w)->close());
  auto members = readArchive(out.get());
  EXPECT_EQ(members["b"].data, "short");
  EXPECT_EQ(members.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Formats, ArchiveWriterTest,
                         ::testing::Values(ArchiveFormat::tar_gz, ArchiveFormat::zip),
                         [](const auto& info) {
                           return info.param == ArchiveFormat::zip ? "zip" : "tar_gz";
                         });

TEST(ArchiveFormatNames, OnlyTarGzAndZip) {
  EXPECT_EQ(parseArchiveFormat("tar.gz"), ArchiveFormat::tar_gz);
  EXPECT_EQ(parseArchiveFormat("zip"), ArchiveFormat::zip);
  EXPECT_FALSE(parseArchiveFormat("tar"));
  EXPECT_FALSE(parseArchiveFormat("ZIP"));
  EXPECT_EQ(archiveFormatName(ArchiveFormat::zip), "zip");
}

}  // namespace
}  // namespace abx::plugins::files
