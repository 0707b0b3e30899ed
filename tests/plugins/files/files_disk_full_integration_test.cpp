// Integration: uploads into a full disk (a 2 MiB tmpfs as the base dir).
// Both upload routes must answer a clear error, leave no partial file at the
// target and no temporary file, keep an existing target as it was, keep the
// server answering, and succeed again once space is freed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>

#include "plugins/files/files_test_support.h"
#include "support/server_process.h"
#include "support/tmpfs_mount.h"

namespace abx::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::uint64_t kTmpfsBytes = 2u << 20;

std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".abx-tmp-") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

TEST(FilesDiskFull, UploadsIntoAFullDiskFailCleanlyAndSucceedOnceSpaceIsFreed) {
  ABX_TMPFS_OR_SKIP(mount, kTmpfsBytes);
  auto options = ServerOptions{kManifest};
  options.env["ABX_SERVER_BASE_DIR"] = mount.dir();
  ServerProcess server(options);
  const int port = server.port();
  writeFile(mount.dir() + "/keep.txt", "old");
  const std::string filler = mount.dir() + "/filler";
  mount.fillLeaving(filler, 256u << 10);
  const auto free_before = mount.freeBytes();
  const std::string big = randomBytes(1u << 20, 7);

  // Each route, each member order (content first is staged outside the base
  // dir and copied in), a new target and an existing one.
  struct Case {
    const char* route;
    std::string target, body;
  };
  const Case cases[] = {
      {"/upload", "new.bin", uploadBody("new.bin", big)},
      {"/files/upload-stream", "new.bin", uploadBody("new.bin", big)},
      {"/files/upload-stream", "keep.txt", uploadBody("keep.txt", big)},
      {"/upload", "late.bin", "{\"content_base64\":\"" + b64(big) + "\",\"path\":\"late.bin\"}"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.route) + " " + c.target);
    const auto began = std::chrono::steady_clock::now();
    auto r = http(port, "POST", c.route, c.body);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    std::cout << "[figure] disk full: " << c.route << " of 1 MiB into " << free_before / 1024
              << " KiB free -> " << r.status << " in " << ms << " ms: " << r.body << "\n";
    EXPECT_EQ(r.status, 500) << r.body;
    auto error = parse(r.body);
    EXPECT_EQ(error->getValue<std::string>("type"), "OSError");
    EXPECT_THAT(error->getValue<std::string>("error"), HasSubstr("No space left on device"));
    EXPECT_EQ(http(port, "GET", "/health").status, 200);
    EXPECT_THAT(temporaries(mount.dir()), ::testing::IsEmpty());
    if (c.target == "keep.txt")
      EXPECT_EQ(readFile(mount.dir() + "/keep.txt"), "old");
    else
      EXPECT_FALSE(fs::exists(mount.dir() + "/" + c.target));
    // Nothing of the failed upload stays on the disk.
    EXPECT_GE(mount.freeBytes() + 4096, free_before);
  }
  EXPECT_THAT(server.stderrText(), Not(HasSubstr("terminate")));

  // Once space is freed, more than was free before fits, in either order.
  fs::remove(filler);
  const std::string after = randomBytes(512u << 10, 8);
  const std::pair<const char*, std::string> later[] = {
      {"/upload", uploadBody("a.bin", after)},
      {"/files/upload-stream", uploadBody("b.bin", after)},
      {"/upload", "{\"content_base64\":\"" + b64(after) + "\",\"path\":\"c.bin\"}"},
  };
  for (const auto& [route, body] : later) {
    SCOPED_TRACE(body.substr(body.size() - 20));
    auto r = http(port, "POST", route, body);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(readFile(parse(r.body)->getValue<std::string>("path")), after);
  }
  EXPECT_THAT(temporaries(mount.dir()), ::testing::IsEmpty());
  EXPECT_TRUE(server.running());
}

}  // namespace
}  // namespace abx::testing
