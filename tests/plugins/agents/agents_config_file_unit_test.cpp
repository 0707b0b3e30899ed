// The server-side agents file (ABX_AGENTS_CONFIG): one definition or a list,
// YAML or JSON, expanded from an injected environment.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "definition/agents_config_file.h"

namespace abx::plugins::agents {
namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class TempFile {
 public:
  TempFile(const std::string& suffix, const std::string& content) {
    path_ = "/tmp/abx_agents_cfg_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++) +
            suffix;
    std::ofstream(path_) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

TEST(AgentsConfigFile, OneDefinitionInYaml) {
  TempFile file(".yaml", "name: solo\nruntime: codex\nprovider: {api_key: '${KEY}'}\n");
  auto r = loadAgentsConfigFile(file.path(), fakeEnv({{"KEY", "sk-from-server-env"}}));
  ASSERT_TRUE(r.ok()) << r.errorText();
  ASSERT_EQ(r.agents.size(), 1u);
  EXPECT_EQ(r.agents[0].name, "solo");
  EXPECT_EQ(r.agents[0].provider.api_key, "sk-from-server-env");
}

TEST(AgentsConfigFile, AListInJson) {
  TempFile file(".json", R"({"agents": [
      {"name": "a", "runtime": "codex", "secrets": {"T": "${T}"}},
      {"name": "b", "runtime": "claude-code"}]})");
  auto r = loadAgentsConfigFile(file.path(), fakeEnv({{"T", "expanded"}}));
  ASSERT_TRUE(r.ok()) << r.errorText();
  ASSERT_EQ(r.agents.size(), 2u);
  EXPECT_EQ(r.agents[0].secrets[0].second, "expanded") << "JSON files are expanded too";
  EXPECT_EQ(r.agents[1].runtime, "claude-code");
}

TEST(AgentsConfigFile, ListErrorsCarryTheIndex) {
  auto r = parseAgentsConfig(R"(
agents:
  - name: ok
    runtime: codex
  - name: bad
    runtime: codex
    provider: {api_key: "${UNSET}"}
    colour: red
)",
                             ConfigFormat::yaml, "agents.yaml", fakeEnv({}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.agents.empty()) << "a half-loaded file is not loaded";
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].text(), "agents[1].colour: unknown key");
  EXPECT_EQ(r.errors[1].text(),
            "agents[1].provider.api_key: environment variable UNSET is not set");
  EXPECT_EQ(r.errorText().rfind("agents.yaml: ", 0), 0u);
}

TEST(AgentsConfigFile, DuplicateNames) {
  auto r = parseAgentsConfig("agents: [{name: a, runtime: x}, {name: a, runtime: y}]",
                             ConfigFormat::yaml, "f", fakeEnv({}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, "agents[1].name");
}

TEST(AgentsConfigFile, AgentsMustBeAList) {
  auto r = parseAgentsConfig("agents: {a: {runtime: x}}", ConfigFormat::yaml, "f", fakeEnv({}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].path, "agents");
  auto extra = parseAgentsConfig("agents: []\nversion: 2\n", ConfigFormat::yaml, "f", fakeEnv({}));
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.errors[0].path, "version");
}

TEST(AgentsConfigFile, KnownRuntimeIsChecked) {
  auto r = parseAgentsConfig("name: a\nruntime: nope\n", ConfigFormat::yaml, "f", fakeEnv({}),
                             [](std::string_view n) { return n == "codex"; });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].path, "runtime");
}

TEST(AgentsConfigFile, UnreadableFile) {
  auto r = loadAgentsConfigFile("/nonexistent/agents.yaml", fakeEnv({}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errorText(), "/nonexistent/agents.yaml: cannot read the file");
}

TEST(AgentsConfigFile, SyntaxError) {
  auto r = parseAgentsConfig("name: [", ConfigFormat::yaml, "f", fakeEnv({}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("Invalid YAML"), std::string::npos);
}

}  // namespace
}  // namespace abx::plugins::agents
