// The manifest's drop-ins: <stem>.d/*.yaml beside the manifest, merged after
// it in name order, as a plugin package adds its plugins without editing the
// manifest an operator owns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "loader/manifest.h"

namespace {

namespace fs = std::filesystem;
using abx::kernel::loadManifest;
using ::testing::ElementsAre;

class ManifestDropInTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "abx-drop-in-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    fs::create_directory(dir_ / "plugins.d");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const fs::path& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string manifest() const { return (dir_ / "plugins.yaml").string(); }

  static std::string entry(const std::string& name, const std::string& extra = "") {
    return "plugins:\n  - name: " + name + "\n    file: " + name + ".so\n" + extra;
  }
  std::vector<std::string> names() {
    auto m = loadManifest(manifest(), std::nullopt);
    EXPECT_TRUE(m.isOk()) << m.status().message();
    std::vector<std::string> out;
    if (m.isOk())
      for (const auto& e : m->entries) out.push_back(e.name + "@" + e.origin);
    return out;
  }

  fs::path dir_;
};

TEST_F(ManifestDropInTest, MergedAfterTheManifestInNameOrder) {
  write("plugins.yaml", entry("core"));
  write("plugins.d/20-b.yaml", entry("b"));
  write("plugins.d/10-a.yml", entry("a"));
  write("plugins.d/README", "not a manifest");
  write("plugins.d/30-c.yaml.dpkg-old", entry("stale"));
  EXPECT_THAT(names(),
              ElementsAre("core@manifest", "a@plugins.d/10-a.yml", "b@plugins.d/20-b.yaml"));
}

TEST_F(ManifestDropInTest, NamedAfterTheManifestsStem) {
  write("minimal.yaml", entry("core"));
  write("plugins.d/10-a.yaml", entry("a"));
  fs::create_directory(dir_ / "minimal.d");
  write("minimal.d/10-m.yaml", entry("m"));
  auto m = loadManifest((dir_ / "minimal.yaml").string(), std::nullopt);
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->entries.size(), 2u);
  EXPECT_EQ(m->entries[1].name, "m");
}

TEST_F(ManifestDropInTest, RelativeSettingsResolveAgainstTheManifestsDirectory) {
  write("plugins.yaml", "plugins: []\n");
  write("plugins.d/10-a.yaml", entry("a", "    settings:\n      commands_file: commands.yaml\n"));
  auto m = loadManifest(manifest(), std::nullopt);
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->entries.size(), 1u);
  EXPECT_EQ(m->entries[0].settings.manifest_dir, dir_.string());
}

TEST_F(ManifestDropInTest, ANameTakenAgainNeedsOverride) {
  write("plugins.yaml", entry("a"));
  write("plugins.d/10-a.yaml", entry("a"));
  auto m = loadManifest(manifest(), std::nullopt);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().message(),
            (dir_ / "plugins.d/10-a.yaml").string() +
                ": plugin 'a' (plugins.d/10-a.yaml) is already defined; add 'override: true' to "
                "replace it");

  write("plugins.d/10-a.yaml", "plugins:\n  - name: a\n    file: other.so\n    override: true\n");
  auto o = loadManifest(manifest(), std::nullopt);
  ASSERT_TRUE(o.isOk()) << o.status().message();
  ASSERT_EQ(o->entries.size(), 1u);
  EXPECT_EQ(o->entries[0].file, "other.so");
  EXPECT_EQ(o->entries[0].origin, "plugins.d/10-a.yaml");
}

TEST_F(ManifestDropInTest, ABrokenDropInIsAnErrorNamingIt) {
  write("plugins.yaml", entry("core"));
  write("plugins.d/10-a.yaml", "plugins:\n  - name: a\n    fiel: a.so\n");
  auto m = loadManifest(manifest(), std::nullopt);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().message(), (dir_ / "plugins.d/10-a.yaml").string() +
                                      ": plugins[0]: unknown key 'fiel' (did you mean 'file'?)");
}

TEST_F(ManifestDropInTest, AdapterModulesComeAfterTheDropIns) {
  write("plugins.yaml", entry("core"));
  write("plugins.d/10-a.yaml", entry("a"));
  auto m = loadManifest(manifest(), std::string("/x/shout.so"));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->entries.size(), 3u);
  EXPECT_EQ(m->entries[2].origin, "ABX_AGENTS_ADAPTER_MODULES");
}

}  // namespace

// Found by tests/fuzz (kernel target, corpus-kernel/regression-manifest-*):
// yaml-cpp threw out of loadManifest on a mapping used as a key or a list
// given as an id; each is now an error that names the file.
TEST_F(ManifestDropInTest, UnexpectedYamlShapesAreErrorsNamingTheFile) {
  for (const std::string text :
       {"? [a, b]\n: 1\n", "plugins:\n  - name: a\n    file: a.so\n    id: [x]\n",
        "plugins:\n  - {name: a, file: a.so, settings: {? [k]: v}}\n",
        "plugins:\n  - {? {k: v}: 1, name: a, file: a.so}\n"}) {
    write("plugins.yaml", text);
    auto m = loadManifest(manifest(), std::nullopt);
    ASSERT_FALSE(m.isOk()) << text;
    EXPECT_THAT(m.status().message(), ::testing::HasSubstr(manifest())) << text;
  }
}
