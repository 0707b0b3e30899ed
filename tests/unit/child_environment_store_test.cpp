// ChildEnvironmentStore, the one keeper of the protected names: a snapshot
// never holds one (ABX_SERVER_* from the start, token variables from the
// moment they are protected, whoever tries to set them later), isProtected
// says so, and a terminal child spawned with the snapshot does not see the
// token.
#include "environment/child_environment_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abx/sdk/subprocess.h"
#include "support/terminal_output.h"

namespace abx::kernel {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr const char* kToken = "tok-3f9a1c-never-in-a-child";

struct Environ {
  std::vector<std::string> entries;
  std::vector<char*> pointers;
  char** get() {
    pointers.clear();
    for (auto& e : entries) pointers.push_back(e.data());
    pointers.push_back(nullptr);
    return pointers.data();
  }
};

Environ serverEnviron() {
  Environ server;
  server.entries = {"PATH=/usr/bin:/bin",
                    "HOME=/root",
                    std::string("ABX_SERVER_TOKEN=") + kToken,
                    "ABX_SERVER_POLICY={}",
                    std::string("CI_TOKEN=") + kToken,
                    "LANG=C"};
  return server;
}

void expectNoProtectedName(const ChildEnvironmentStore& store) {
  for (const auto& entry : store.snapshot()) {
    EXPECT_FALSE(store.isProtected(entry.substr(0, entry.find('=')))) << entry;
    EXPECT_THAT(entry, Not(HasSubstr(kToken)));
  }
}

TEST(ChildEnvironmentStore, ASnapshotNeverHoldsAProtectedName) {
  Environ server = serverEnviron();
  ChildEnvironmentStore store(server.get());
  EXPECT_TRUE(store.isProtected("ABX_SERVER_TOKEN"));
  EXPECT_TRUE(store.isProtected("ABX_SERVER_ANYTHING"));
  EXPECT_THAT(store.snapshot(), Not(Contains(StartsWith("ABX_SERVER_"))));
  EXPECT_THAT(store.snapshot(), Contains("LANG=C"));

  // A token variable is unknown until the policy names it; from then on it
  // is gone and stays refused.
  EXPECT_FALSE(store.isProtected("CI_TOKEN"));
  store.protect({"CI_TOKEN"});
  EXPECT_TRUE(store.isProtected("CI_TOKEN"));
  expectNoProtectedName(store);
  EXPECT_EQ(store.get("CI_TOKEN"), std::nullopt);
  EXPECT_EQ(store.set("CI_TOKEN", "again").type(), "PermissionError");
  EXPECT_EQ(store.set("ABX_SERVER_TOKEN", "again").type(), "PermissionError");
  // Protecting more never gives a name back.
  store.protect({"OTHER_TOKEN"});
  EXPECT_TRUE(store.isProtected("CI_TOKEN"));
  ASSERT_TRUE(store.set("FOO", "bar").isOk());
  expectNoProtectedName(store);
  EXPECT_THAT(store.snapshot(), Contains("FOO=bar"));
}

TEST(ChildEnvironmentStore, ATerminalChildStartedWithTheSnapshotDoesNotSeeTheToken) {
  Environ server = serverEnviron();
  ChildEnvironmentStore store(server.get());
  store.protect({"CI_TOKEN"});
  sdk::SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "env; echo env-done"};
  o.env = store.snapshot();
  o.terminal = sdk::TerminalSize{};
  auto p = sdk::Subprocess::spawn(o);
  ASSERT_TRUE(p) << p.status().message();
  const std::string out = testing::readTerminalOutput(p->terminalFd());
  EXPECT_EQ(p->wait(), 0);
  EXPECT_THAT(out, HasSubstr("LANG=C"));  // the child did print its environment
  EXPECT_THAT(out, HasSubstr("env-done"));
  EXPECT_THAT(out, Not(HasSubstr(kToken)));
  EXPECT_THAT(out, Not(HasSubstr("ABX_SERVER_")));
  EXPECT_THAT(out, Not(HasSubstr("CI_TOKEN")));
}

}  // namespace
}  // namespace abx::kernel
