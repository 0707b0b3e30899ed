// Integration: the real server loads abx_adapter_command.so from a manifest
// and lists it (CLI `plugins` and GET /capabilities).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "abx/sdk/subprocess.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kManifest =
    "plugins:\n"
    "  - name: adapter_command\n"
    "    file: abx_adapter_command.so\n"
    "    id: abx.adapter.command\n";

TEST(AdapterCommand, ServerLoadsAndListsIt) {
  ServerProcess server({kManifest});
  auto caps = http(server.port(), "GET", "/capabilities");
  EXPECT_EQ(caps.status, 200);
  EXPECT_THAT(caps.body, HasSubstr(R"("abx.adapter.command")"));
  EXPECT_THAT(caps.body, Not(HasSubstr(R"("state":"failed")")));
}

TEST(AdapterCommand, PluginsCommandShowsItLoaded) {
  std::string manifest = "/tmp/abx-adapter-manifest-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(manifest) << kManifest;
  sdk::SpawnOptions o;
  o.argv = {serverBinary(), "plugins",   "--plugins", manifest,
            "--plugin-dir", pluginDir(), "--json"};
  o.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
  o.stdin_pipe = false;
  auto r = sdk::Subprocess::run(o, {std::chrono::seconds(20)});
  std::remove(manifest.c_str());
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_THAT(r->out, HasSubstr(R"("state":"ok","required":true,"id":"abx.adapter.command")"));
}

}  // namespace
}  // namespace abx::testing
