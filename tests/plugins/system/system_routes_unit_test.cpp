// The /packages and /system/info handlers against stand-in tools: a PATH
// holding fake python3 / npm scripts shows that the child environment is
// used, and drives the missing-manager, timeout and bad-output answers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "abx/sdk/testing/fakes.h"
#include "system_routes.h"

namespace abx::plugins::system {
namespace {

using sdk::testing::FakeEnvironment;
using sdk::testing::makeRequest;
using ::testing::HasSubstr;

class SystemRoutes : public ::testing::Test {
 protected:
  SystemRoutes() {
    char tmpl[] = "/tmp/abx-sys-XXXXXX";
    if (::mkdtemp(tmpl)) dir = tmpl;
    env.vars = {{"PATH", dir + ":/usr/bin:/bin"}};
    state.environment = &env;
    state.base_dir = dir;
  }
  ~SystemRoutes() override { std::filesystem::remove_all(dir); }

  void tool(const std::string& name, const std::string& script) {
    const auto path = std::filesystem::path(dir) / name;
    std::ofstream(path) << "#!/bin/sh\n" << script << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
  sdk::Response packages(std::optional<std::string> manager,
                         const sdk::EndpointPolicy* policy = nullptr) {
    auto r = makeRequest("GET", "/packages", {}, policy);
    if (manager) r.query["manager"] = *manager;
    return listPackages(state, r);
  }

  std::string dir;
  FakeEnvironment env;
  SystemState state;
};

TEST_F(SystemRoutes, PackagesRunTheManagerFoundInTheChildPath) {
  tool("python3", R"(echo '[{"name":"fake-pkg","version":"9.9"}]'; echo "$FAKE_MARK" >&2)");
  tool("npm", R"(echo '{"dependencies":{"left-pad":{"version":"1.3.0"}}}')");
  auto pip = packages(std::nullopt);
  EXPECT_EQ(pip.status, 200);
  EXPECT_EQ(pip.body, R"({"manager":"pip","packages":[{"name":"fake-pkg","version":"9.9"}]})");
  auto npm = packages("npm");
  EXPECT_EQ(npm.body, R"({"manager":"npm","packages":[{"name":"left-pad","version":"1.3.0"}]})");
}

// A pip package or .npmrc planted in the server's working directory must not
// be what answers: every probe runs in "/", pip in an isolated python3.
TEST_F(SystemRoutes, ProbesRunInTheNeutralDirectoryWithAnIsolatedPython) {
  tool("python3", R"sh(printf '[{"name":"%s","version":"%s"}]' "$(pwd)" "$*")sh");
  tool("npm", R"sh(printf '{"dependencies":{"%s":{"version":"%s"}}}' "$(pwd)" "$*")sh");
  EXPECT_EQ(packages("pip").body, R"({"manager":"pip","packages":[)"
                                  R"({"name":"/","version":"-I -m pip list --format=json"}]})");
  EXPECT_EQ(packages("npm").body,
            R"({"manager":"npm","packages":[{"name":"/","version":"ls -g --json --depth=0"}]})");
  tool("python3", R"sh(test "$(pwd)" = / && test "$1" = -I && echo 'Python 3.42.0')sh");
  EXPECT_THAT(systemInfo(state, makeRequest("GET", "/system/info")).body,
              HasSubstr(R"("python_version":"3.42.0")"));
}

TEST_F(SystemRoutes, UnknownManagerIs400) {
  auto r = packages("foo");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(
      r.body,
      R"({"error":"Unsupported package manager: 'foo'; use 'pip' or 'npm'","type":"ValueError"})");
  EXPECT_EQ(packages("").status, 400);
}

TEST_F(SystemRoutes, AMissingManagerIsAnEmptyList) {
  env.vars["PATH"] = dir + "/nothing-here";
  EXPECT_EQ(packages("pip").body, R"({"manager":"pip","packages":[]})");
  EXPECT_EQ(packages("npm").body, R"({"manager":"npm","packages":[]})");
}

TEST_F(SystemRoutes, TheChildEnvironmentWithoutPathGetsADefaultOne) {
  env.vars.clear();
  auto r = packages("npm");  // found (or not) through /usr/local/bin:/usr/bin:/bin
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(SystemRoutes, PolicyTimeoutIs500TimeoutError) {
  tool("python3", "exec sleep 10");
  sdk::EndpointPolicy policy;
  policy.limits.timeout_seconds = 0.2;
  auto start = std::chrono::steady_clock::now();
  auto r = packages("pip", &policy);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, R"({"error":"pip timed out after 0.2 s","type":"TimeoutError"})");
}

TEST_F(SystemRoutes, BadOutputIs500) {
  tool("npm", "echo 'npm WARN config something'; exit 0");
  auto r = packages("npm");
  EXPECT_EQ(r.status, 500);
  EXPECT_THAT(r.body, HasSubstr(R"("error":"npm printed invalid JSON)"));
  EXPECT_THAT(r.body, HasSubstr(R"("type":"ValueError")"));
  tool("python3", "echo 'Traceback: boom' >&2; exit 1");
  auto failed = packages("pip");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body,
            R"({"error":"pip exited with code 1: Traceback: boom","type":"CommandError"})");
  sdk::EndpointPolicy policy;
  policy.limits.max_output_bytes = 16;
  tool("python3", R"(echo '[{"name":"a-very-long-package-name","version":"1"}]')");
  EXPECT_THAT(packages("pip", &policy).body, HasSubstr(R"("type":"OutputLimitError")"));
}

TEST_F(SystemRoutes, PythonVersionIsProbedOnceInTheChildEnvironment) {
  tool("python3", "echo 'Python 3.99.1'");
  auto first = systemInfo(state, makeRequest("GET", "/system/info"));
  EXPECT_EQ(first.status, 200);
  EXPECT_THAT(first.body, HasSubstr(R"("python_version":"3.99.1")"));
  tool("python3", "echo 'Python 3.100.0'");
  EXPECT_THAT(systemInfo(state, makeRequest("GET", "/system/info")).body,
              HasSubstr(R"("python_version":"3.99.1")"));
}

TEST_F(SystemRoutes, NoPythonIsNull) {
  env.vars["PATH"] = dir + "/nothing-here";
  EXPECT_THAT(systemInfo(state, makeRequest("GET", "/system/info")).body,
              HasSubstr(R"("python_version":null)"));
}

}  // namespace
}  // namespace abx::plugins::system
