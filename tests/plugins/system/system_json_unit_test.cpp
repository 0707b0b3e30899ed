// Bodies of /system/info, /system/metrics, /ports and /packages on fixed
// figures, number rounding, the python version text and the package
// listings' JSON.
#include <gtest/gtest.h>

#include <cmath>

#include "package_list.h"
#include "python_version.h"
#include "rounded_number.h"
#include "system_routes.h"

namespace abx::plugins::system {
namespace {

TEST(JsonText, RoundsLikePythonPrints) {
  EXPECT_EQ(roundedNumber(40.0, 1), "40.0");
  EXPECT_EQ(roundedNumber(25.46, 1), "25.5");
  EXPECT_EQ(roundedNumber(0.1, 1), "0.1");
  EXPECT_EQ(roundedNumber(2.0 / 3.0, 2), "0.67");
  EXPECT_EQ(roundedNumber(0, 2), "0.0");
  EXPECT_EQ(roundedNumber(-0.0001, 1), "0.0");
  EXPECT_EQ(roundedNumber(123456.789, 1), "123456.8");
  EXPECT_EQ(roundedNumber(std::nan(""), 1), "0.0");
  EXPECT_EQ(gibNumber(0), "0.0");
  EXPECT_EQ(gibNumber(40ull << 30), "40.0");
  EXPECT_EQ(gibNumber((25ull << 30) + (1ull << 29)), "25.5");
}

TEST(SystemJson, InfoHasEveryFieldInSpecOrder) {
  SystemFacts facts;
  facts.os = "Linux";
  facts.arch = "x86_64";
  facts.hostname = "sandbox-01";
  facts.cpu_count = 4;
  facts.memory = MemInfo{8192 * 1024, 4096 * 1024};
  facts.disk = DiskUsage{"/home/user", 40ull << 30, (25ull << 30) + (1ull << 29), 0};
  facts.python_version = "3.11.5";
  EXPECT_EQ(systemInfoJson(facts),
            R"({"os":"Linux","arch":"x86_64","cpu_count":4,"memory_total_mb":8192,)"
            R"("memory_available_mb":4096,"disk_total_gb":40.0,"disk_free_gb":25.5,)"
            R"("python_version":"3.11.5","hostname":"sandbox-01"})");
  facts.python_version.reset();
  facts.memory.reset();
  facts.disk.reset();
  EXPECT_EQ(systemInfoJson(facts),
            R"({"os":"Linux","arch":"x86_64","cpu_count":4,"memory_total_mb":0,)"
            R"("memory_available_mb":0,"disk_total_gb":0.0,"disk_free_gb":0.0,)"
            R"("python_version":null,"hostname":"sandbox-01"})");
}

TEST(SystemJson, MetricsRoundPercentsToOneDecimal) {
  MemInfo memory{8192 * 1024, 6144 * 1024};
  DiskUsage disk{"/", 40ull << 30, 0, (14ull << 30) + (1ull << 29)};
  EXPECT_EQ(metricsJson(LoadAverage{0.154, 0.1, 0.05}, memory, disk, 123.44),
            R"({"cpu_load_1m":0.15,"cpu_load_5m":0.1,"cpu_load_15m":0.05,)"
            R"("memory_used_mb":2048,"memory_total_mb":8192,"memory_percent":25.0,)"
            R"("disk_used_gb":14.5,"disk_total_gb":40.0,"disk_percent":36.3,)"
            R"("uptime_seconds":123.4})");
  EXPECT_EQ(metricsJson(std::nullopt, std::nullopt, std::nullopt, 0),
            R"({"cpu_load_1m":0.0,"cpu_load_5m":0.0,"cpu_load_15m":0.0,)"
            R"("memory_used_mb":0,"memory_total_mb":0,"memory_percent":0.0,)"
            R"("disk_used_gb":0.0,"disk_total_gb":0.0,"disk_percent":0.0,"uptime_seconds":0.0})");
}

TEST(SystemJson, PortsListPidOrNull) {
  EXPECT_EQ(portsJson({}), R"({"listening":[]})");
  EXPECT_EQ(portsJson({{"tcp", "0.0.0.0", 8080, 1, std::nullopt}, {"tcp6", "::1", 9000, 2, 42}}),
            R"({"listening":[{"port":8080,"protocol":"tcp","address":"0.0.0.0","pid":null},)"
            R"({"port":9000,"protocol":"tcp6","address":"::1","pid":42}]})");
}

TEST(PythonVersion, ParsesTheVersionLine) {
  EXPECT_EQ(parsePythonVersion("Python 3.11.7\n"), "3.11.7");
  EXPECT_EQ(parsePythonVersion("Python 3.13.0rc1"), "3.13.0rc1");
  EXPECT_EQ(parsePythonVersion("Python 2.7.18\r\n"), "2.7.18");
  EXPECT_FALSE(parsePythonVersion(""));
  EXPECT_FALSE(parsePythonVersion("python3: command not found"));
  EXPECT_FALSE(parsePythonVersion("Python \n"));
}

TEST(PythonVersion, ProbeOfAMissingInterpreterIsNull) {
  EXPECT_FALSE(probePythonVersion({"PATH=/nonexistent"}, std::chrono::seconds(2)));
  int calls = 0;
  PythonVersionCache cache;
  auto probe = [&] {
    ++calls;
    return std::optional<std::string>("3.12.1");
  };
  EXPECT_EQ(cache.get(probe), "3.12.1");
  EXPECT_EQ(cache.get(probe), "3.12.1");
  EXPECT_EQ(calls, 1);
}

TEST(PackageList, ArgvPerManager) {
  EXPECT_EQ(packageListArgv("pip"),
            (std::vector<std::string>{"python3", "-I", "-m", "pip", "list", "--format=json"}));
  EXPECT_EQ(packageListArgv("npm"),
            (std::vector<std::string>{"npm", "ls", "-g", "--json", "--depth=0"}));
  EXPECT_FALSE(packageListArgv("foo"));
  EXPECT_FALSE(packageListArgv("PIP"));
  EXPECT_FALSE(packageListArgv(""));
}

TEST(PackageList, ParsesPipJson) {
  auto packages =
      parsePipList(R"([{"name":"requests","version":"2.32.0"},{"name":"pip","version":"23.2.1",)"
                   R"("editable_project_location":"/x"},{"version":"1"}])");
  ASSERT_TRUE(packages);
  ASSERT_EQ(packages->size(), 2u);
  EXPECT_EQ((*packages)[0].name, "requests");
  EXPECT_EQ((*packages)[0].version, "2.32.0");
  EXPECT_TRUE(parsePipList("[]"));
  EXPECT_FALSE(parsePipList(""));
  EXPECT_FALSE(parsePipList("{}"));
  EXPECT_FALSE(parsePipList("[1]"));
  EXPECT_EQ(parsePipList("not json").status().type(), "ValueError");
}

TEST(PackageList, ParsesNpmJson) {
  auto packages = parseNpmList(
      R"({"name":"lib","dependencies":{"npm":{"version":"11.19.1","overridden":false},)"
      R"("corepack":{"version":"0.34.6"},"odd":"1.0.0","noversion":{}}})");
  ASSERT_TRUE(packages);
  ASSERT_EQ(packages->size(), 4u);
  EXPECT_EQ((*packages)[0].name, "corepack");
  EXPECT_EQ((*packages)[0].version, "0.34.6");
  EXPECT_EQ((*packages)[1].name, "noversion");
  EXPECT_EQ((*packages)[1].version, "");
  EXPECT_EQ((*packages)[2].version, "11.19.1");
  EXPECT_EQ((*packages)[3].version, "1.0.0");
  auto empty = parseNpmList(R"({"name":"lib"})");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
  EXPECT_FALSE(parseNpmList("[]"));
  EXPECT_FALSE(parseNpmList(""));
}

TEST(PackageList, InterpretsRuns) {
  using namespace std::chrono_literals;
  sdk::Completed ok{0, R"([{"name":"a","version":"1"}])", "", false, false};
  EXPECT_TRUE(interpretPackageRun("pip", ok, 30s));

  sdk::Completed slow{-9, "", "", true, false};
  auto timeout = interpretPackageRun("pip", slow, 30s);
  EXPECT_EQ(timeout.status().type(), "TimeoutError");
  EXPECT_EQ(timeout.status().message(), "pip timed out after 30 s");
  EXPECT_EQ(interpretPackageRun("npm", slow, 500ms).status().message(),
            "npm timed out after 0.5 s");

  sdk::Completed cut{0, "[", "", false, true};
  EXPECT_EQ(interpretPackageRun("pip", cut, 30s).status().type(), "OutputLimitError");

  // npm exits 1 on dependency problems but still prints the list.
  sdk::Completed npm_problem{1, R"({"dependencies":{"x":{"version":"1"}}})", "ELSPROBLEMS", false,
                             false};
  EXPECT_EQ(interpretPackageRun("npm", npm_problem, 30s)->size(), 1u);

  sdk::Completed no_pip{1, "", "/usr/bin/python3: No module named pip\n", false, false};
  auto none = interpretPackageRun("pip", no_pip, 30s);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());

  sdk::Completed crash{2, "", "boom\n", false, false};
  auto failed = interpretPackageRun("pip", crash, 30s);
  EXPECT_EQ(failed.status().type(), "CommandError");
  EXPECT_EQ(failed.status().message(), "pip exited with code 2: boom");

  sdk::Completed junk{0, "WARNING: something\n[", "", false, false};
  auto bad = interpretPackageRun("pip", junk, 30s);
  EXPECT_EQ(bad.status().type(), "ValueError");
  EXPECT_EQ(bad.status().message().rfind("pip printed invalid JSON", 0), 0u)
      << bad.status().message();
}

TEST(PackageList, BodyLists) {
  EXPECT_EQ(packagesJson("pip", {}), R"({"manager":"pip","packages":[]})");
  EXPECT_EQ(packagesJson("npm", {{"a\"b", "1"}, {"c", ""}}),
            R"({"manager":"npm","packages":[{"name":"a\"b","version":"1"},)"
            R"({"name":"c","version":""}]})");
}

}  // namespace
}  // namespace abx::plugins::system
