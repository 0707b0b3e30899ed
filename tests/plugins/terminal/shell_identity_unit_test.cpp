// params.shells judges the file behind a shell path (shell_identity.h): the
// system's own links pass, a caller's link named after an allowed shell is
// judged by what it points to, a #! script by its interpreter.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "shell_identity.h"

namespace abx::plugins::terminal {
namespace {

using Strings = std::vector<std::string>;

TEST(ShellIdentity, SystemFilesAndLinks) {
  EXPECT_TRUE(shellFileAllowed("/usr/bin/bash", Strings{"bash"}));
  EXPECT_TRUE(shellFileAllowed("/bin/sh", Strings{"sh"}));  // /bin/sh -> dash: the system's link
  EXPECT_TRUE(shellFileAllowed("/bin/sh", Strings{"/bin/sh"}));
  EXPECT_FALSE(shellFileAllowed("/no/such/shell", Strings{"shell"}));
}

TEST(ShellIdentity, CallersLinksAndScripts) {
  char tmpl[] = "/tmp/abx-shells-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string dir = tmpl;
  std::filesystem::create_symlink("/usr/bin/dash", dir + "/bash");
  EXPECT_FALSE(shellFileAllowed(dir + "/bash", Strings{"bash"}));
  EXPECT_TRUE(shellFileAllowed(dir + "/bash", Strings{"bash", "dash"}));
  std::ofstream(dir + "/wrapper") << "#!/usr/bin/dash\n";
  ::chmod((dir + "/wrapper").c_str(), 0755);
  EXPECT_FALSE(shellFileAllowed(dir + "/wrapper", Strings{"wrapper"}));
  EXPECT_TRUE(shellFileAllowed(dir + "/wrapper", Strings{"wrapper", "dash"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace abx::plugins::terminal
