// Integration: the agent-sandbox-server command line (exit codes and output).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "abx/sdk/subprocess.h"
#include "abx/sdk/version.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

sdk::Completed cli(std::vector<std::string> args) {
  sdk::SpawnOptions o;
  o.argv = {serverBinary()};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
  o.stdin_pipe = false;
  auto r = sdk::Subprocess::run(o, {std::chrono::seconds(20)});
  EXPECT_TRUE(r.isOk());
  return r ? *r : sdk::Completed{};
}

std::string writeManifest(const std::string& text) {
  std::string path = "/tmp/abx-cli-manifest-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, VersionAndHelp) {
  auto v = cli({"version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(
      v.out,
      HasSubstr("agent-sandbox-server 0.1.0 (plugin ABI " + std::to_string(ABX_SDK_ABI_MAJOR) +
                "." + std::to_string(ABX_SDK_ABI_MINOR) + ", SDK " + ABX_SDK_VERSION_STRING + ")"));
  auto h = cli({"serve", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("--insecure-no-auth"));
  auto none = cli({});
  EXPECT_EQ(none.exit_code, 2);
  auto typo = cli({"serve", "--prot", "1"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("unknown option '--prot' (did you mean '--port'?)"));
  auto cmd = cli({"plugin"});
  EXPECT_EQ(cmd.exit_code, 2);
  EXPECT_THAT(cmd.err, HasSubstr("did you mean 'plugins'?"));
}

TEST(Cli, PluginsAndCheckConfigProbeEveryEntry) {
  auto manifest = writeManifest(
      "plugins:\n  - name: commands\n    file: abx_commands.so\n"
      "  - name: old\n    file: " +
      fixtureDir() + "/abi_major_mismatch.so\n    required: false\n");
  auto list = cli({"plugins", "--plugins", manifest, "--plugin-dir", pluginDir(), "--json"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_THAT(list.out, HasSubstr(R"("name":"commands")"));
  EXPECT_THAT(list.out, HasSubstr(R"("state":"ok","required":true,"id":"abx.commands")"));
  EXPECT_THAT(list.out, HasSubstr(R"("error":{"stage":"abi")"));
  EXPECT_EQ(cli({"check-config", "--plugins", manifest, "--plugin-dir", pluginDir()}).exit_code, 0);

  auto required =
      writeManifest("plugins:\n  - name: old\n    file: " + fixtureDir() + "/bad_fingerprint.so\n");
  auto check = cli({"check-config", "--plugins", required, "--plugin-dir", pluginDir()});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.err,
              HasSubstr("bad_fingerprint.so: fingerprint: build fingerprint mismatch on stdlib"));
  std::remove(manifest.c_str());
}

TEST(Cli, HealthcheckExitCodes) {
  ServerProcess server;
  EXPECT_EQ(cli({"healthcheck", "--port", std::to_string(server.port())}).exit_code, 0);
  server.stop();
  EXPECT_EQ(
      cli({"healthcheck", "--port", std::to_string(server.port()), "--timeout", "1"}).exit_code, 1);
}

}  // namespace
}  // namespace abx::testing
