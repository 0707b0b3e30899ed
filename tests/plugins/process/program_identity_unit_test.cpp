// What a program word starts (program_identity.h): the path found, the file
// behind links, system links, binaries, #! scripts and other files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "program_identity.h"

namespace abx::plugins::process {
namespace {

using Strings = std::vector<std::string>;
const Strings kEnv = {"PATH=/usr/bin:/bin"};

TEST(ProgramIdentity, ShebangLinesAsLinuxReadsThem) {
  EXPECT_EQ(shebangInterpreter("#!/bin/sh\necho"), Strings{"/bin/sh"});
  EXPECT_EQ(shebangInterpreter("#! /usr/bin/env  python3 -u \nx"),
            (Strings{"/usr/bin/env", "python3 -u"}));
  EXPECT_EQ(shebangInterpreter("#!/bin/bash\r\n"), Strings{"/bin/bash"});
  EXPECT_EQ(shebangInterpreter("#!/bin/sh"), Strings{"/bin/sh"});
  EXPECT_TRUE(shebangInterpreter("#!   \n").empty());
  EXPECT_TRUE(shebangInterpreter("echo hi").empty());
  EXPECT_TRUE(shebangInterpreter("").empty());
}

TEST(ProgramIdentity, SystemProgramsAndTheirLinks) {
  auto ls = identifyProgram("ls", kEnv, "/");
  EXPECT_EQ(ls.path, "/usr/bin/ls");
  EXPECT_EQ(ls.real, "/usr/bin/ls");
  EXPECT_EQ(ls.kind, ProgramKind::binary);
  EXPECT_TRUE(ls.system_links);
  auto sh = identifyProgram("/bin/sh", kEnv, "/");
  EXPECT_EQ(sh.path, "/bin/sh");
  ASSERT_TRUE(sh.real);
  EXPECT_NE(*sh.real, "/bin/sh");  // Debian: dash
  EXPECT_TRUE(sh.system_links);
  auto missing = identifyProgram("no-such-program-xyz", kEnv, "/");
  EXPECT_EQ(missing.kind, ProgramKind::missing);
  EXPECT_FALSE(missing.path);
}

TEST(ProgramIdentity, CallersLinksScriptsAndOtherFiles) {
  char tmpl[] = "/tmp/abx-identity-XXXXXX";
  ASSERT_TRUE(::mkdtemp(tmpl));
  const std::string dir = tmpl;
  std::filesystem::create_symlink("/usr/bin/ls", dir + "/bash");
  std::ofstream(dir + "/script") << "#!/usr/bin/env ls\n";
  std::ofstream(dir + "/text") << "ls\n";
  std::ofstream(dir + "/notexec") << "#!/bin/sh\n";
  ::chmod((dir + "/script").c_str(), 0755);
  ::chmod((dir + "/text").c_str(), 0755);
  auto link = identifyProgram("./bash", kEnv, dir);
  EXPECT_EQ(link.path, dir + "/bash");
  EXPECT_EQ(link.real, "/usr/bin/ls");
  EXPECT_FALSE(link.system_links);  // a caller's link (in /tmp) vouches for nothing
  auto script = identifyProgram(dir + "/script", kEnv, "/");
  EXPECT_EQ(script.kind, ProgramKind::script);
  EXPECT_EQ(script.interpreter, (Strings{"/usr/bin/env", "ls"}));
  EXPECT_EQ(identifyProgram("./text", kEnv, dir).kind, ProgramKind::other);
  EXPECT_EQ(identifyProgram("./notexec", kEnv, dir).kind, ProgramKind::missing);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace abx::plugins::process
