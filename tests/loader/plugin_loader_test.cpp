// PluginLoader tests against the fixture .so files (one per failure stage),
// fingerprint comparison, settings validation, and the manifest reader.
#include "loader/plugin_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loader/kernel_services.h"
#include "loader/manifest.h"
#include "loader/settings_schema.h"

namespace {

namespace fs = std::filesystem;
using abx::kernel::GroupRecord;
using abx::kernel::KernelServices;
using abx::kernel::LoadError;
using abx::kernel::loadManifest;
using abx::kernel::ManifestEntry;
using abx::kernel::PluginLoader;
using abx::kernel::PluginRecord;
using abx::kernel::resolvePluginFile;
using abx::kernel::RouteTable;
using abx::kernel::validateSettings;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string fixture(const std::string& name) {
  return std::string(ABX_FIXTURE_DIR) + "/" + name + ".so";
}

/** A fresh directory under the system temp dir, removed at the end. */
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "abx-loader-test-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& text) const {
    auto file = path_ + "/" + name;
    std::ofstream(file) << text;
    return file;
  }

 private:
  std::string path_;
};

abx::sdk::HostInfo hostInfo(const std::string& dir) {
  abx::sdk::HostInfo info;
  info.server_version = "test";
  info.host = "127.0.0.1";
  info.base_dir = dir;
  info.state_dir = dir;
  return info;
}

class PluginLoaderTest : public ::testing::Test {
 protected:
  PluginLoaderTest() : services_(hostInfo(dir_.path())) {}

  /** A record for @p name's fixture, as the server builds one. */
  PluginRecord& record(const std::string& name) {
    auto& r = records_.emplace_back(std::make_unique<PluginRecord>());
    r->entry.name = name;
    r->entry.file = name + ".so";
    r->entry.origin = "manifest";
    r->path = fixture(name);
    return *r;
  }
  /** Probes and starts; the first error, if any. */
  std::optional<LoadError> load(PluginRecord& r) {
    auto error = PluginLoader::probe(r, ids_);
    if (!error) error = PluginLoader::start(r, services_, routes_, groups_);
    if (!error) ids_.push_back(r.id);
    return error;
  }
  void expectFailure(const std::optional<LoadError>& error, const std::string& stage,
                     const std::string& file) {
    ASSERT_TRUE(error.has_value()) << "expected a failure at " << stage;
    EXPECT_EQ(error->stage, stage) << error->line();
    EXPECT_EQ(error->file, fixture(file));
    EXPECT_EQ(error->line(), error->file + ": " + stage + ": " + error->message);
  }

  TempDir dir_;
  KernelServices services_;
  RouteTable routes_;
  std::vector<GroupRecord> groups_;
  std::vector<std::string> ids_;
  // Records outlive nothing they point into: destroyed before services_.
  std::vector<std::unique_ptr<PluginRecord>> records_;
};

TEST_F(PluginLoaderTest, GoodPluginStartsAndServesItsRoute) {
  auto& r = record("good");
  auto error = load(r);
  ASSERT_FALSE(error) << error->line();
  EXPECT_EQ(r.state, "started");
  EXPECT_EQ(r.id, "test.fixture.good");
  EXPECT_EQ(r.version, "1.2.3");
  EXPECT_EQ(r.kind, ABX_KIND_CAPABILITY);
  EXPECT_EQ(abx::kernel::kindName(r.kind), "capability");
  EXPECT_EQ(r.groups, std::vector<std::string>{"fixture_good"});
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(groups_.size(), 1u);
  EXPECT_EQ(groups_[0].spec.name, "fixture_good");
  EXPECT_EQ(groups_[0].owner, "test.fixture.good");

  auto m = routes_.match("GET", "/fixture/good");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route->spec.endpoint, "fixture_good");
  EXPECT_EQ(m->route->owner, "test.fixture.good");
  auto reply = m->route->spec.handler(abx::sdk::Request{});
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, R"({"fixture":"good"})");

  // The registration window is closed after start().
  abx::sdk::RouteSpec late;
  late.method = "GET";
  late.path = "/fixture/late";
  late.endpoint = "fixture_late";
  late.group = "fixture_good";
  late.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  auto status = r.host->routes().add(late);
  ASSERT_FALSE(status.isOk());
  EXPECT_THAT(status.message(), HasSubstr("accepted only during Plugin::start()"));
  EXPECT_FALSE(r.host->routes().declareGroup({"late", false, ""}).isOk());
  EXPECT_EQ(routes_.size(), 1u);

  // Stopped, not yet destroyed: a server stops every plugin before it
  // destroys any (another plugin's threads may still use this one).
  PluginLoader::stop(r);
  EXPECT_EQ(r.state, "stopped");
  EXPECT_NE(r.instance, nullptr);
  PluginLoader::stop(r);  // once only
  PluginLoader::destroy(r);
  EXPECT_EQ(r.state, "stopped");
  EXPECT_EQ(r.instance, nullptr);
}

TEST_F(PluginLoaderTest, GoodPluginWithValidSettings) {
  auto& r = record("good");
  r.entry.settings.values = {{"greeting", "hi"}, {"count", "-3"}};
  auto error = load(r);
  ASSERT_FALSE(error) << error->line();
  EXPECT_EQ(r.host->settings().get("greeting"), "hi");
}

TEST_F(PluginLoaderTest, OpenMissingFile) {
  auto& r = record("does_not_exist");
  auto error = load(r);
  expectFailure(error, "open", "does_not_exist");
  EXPECT_EQ(error->message, "no such file");
}

TEST_F(PluginLoaderTest, OpenUndefinedSymbolNamesTheSymbol) {
  auto& r = record("undefined_symbol");
  auto error = load(r);
  expectFailure(error, "open", "undefined_symbol");
  EXPECT_THAT(error->message, HasSubstr("abx_fixture_function_nobody_defines"));
  EXPECT_THAT(error->message, HasSubstr("undefined symbol"));
}

TEST_F(PluginLoaderTest, OpenNotASharedObject) {
  auto junk = dir_.write("junk.so", "this is not an ELF file");
  auto& r = record("junk");
  r.path = junk;
  auto error = PluginLoader::probe(r, ids_);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->stage, "open");
  EXPECT_FALSE(error->message.empty());
}

TEST_F(PluginLoaderTest, EntryMissing) {
  auto& r = record("missing_entry");
  auto error = load(r);
  expectFailure(error, "entry", "missing_entry");
  EXPECT_THAT(error->message, HasSubstr("no 'abx_plugin_entry' symbol"));
  EXPECT_THAT(error->message, HasSubstr("not an agent-sandbox plugin"));
}

TEST_F(PluginLoaderTest, AbiMajorMismatch) {
  auto& r = record("abi_major_mismatch");
  auto error = load(r);
  expectFailure(error, "abi", "abi_major_mismatch");
  EXPECT_THAT(error->message, HasSubstr("plugin ABI " + std::to_string(ABX_SDK_ABI_MAJOR + 1)));
  EXPECT_THAT(error->message, HasSubstr("the major version must match"));
}

TEST_F(PluginLoaderTest, AbiMinorNewer) {
  auto& r = record("abi_minor_newer");
  auto error = load(r);
  expectFailure(error, "abi", "abi_minor_newer");
  EXPECT_THAT(error->message, HasSubstr("newer SDK"));
  EXPECT_THAT(error->message, HasSubstr(std::to_string(ABX_SDK_ABI_MAJOR) + "." +
                                        std::to_string(ABX_SDK_ABI_MINOR + 1)));
}

TEST_F(PluginLoaderTest, FingerprintMismatch) {
  auto& r = record("bad_fingerprint");
  auto error = load(r);
  expectFailure(error, "fingerprint", "bad_fingerprint");
  EXPECT_THAT(error->message, HasSubstr("build fingerprint mismatch on stdlib"));
  EXPECT_THAT(error->message, HasSubstr("plugin libc++-17"));
}

TEST_F(PluginLoaderTest, IdMismatch) {
  auto& r = record("good");
  r.entry.id = "other";
  auto error = load(r);
  expectFailure(error, "id_mismatch", "good");
  EXPECT_EQ(error->message, "manifest says id 'other', the file is 'test.fixture.good'");
  EXPECT_EQ(routes_.size(), 0u);
}

TEST_F(PluginLoaderTest, MatchingManifestIdIsAccepted) {
  auto& r = record("good");
  r.entry.id = "test.fixture.good";
  EXPECT_FALSE(load(r));
}

TEST_F(PluginLoaderTest, DuplicateId) {
  auto& first = record("good");
  ASSERT_FALSE(load(first));
  auto& second = record("good");
  auto error = load(second);
  expectFailure(error, "duplicate_id", "good");
  EXPECT_THAT(error->message, HasSubstr("already has id 'test.fixture.good'"));
  EXPECT_EQ(routes_.size(), 1u);
  EXPECT_EQ(groups_.size(), 1u);
  EXPECT_EQ(second.instance, nullptr);
}

TEST_F(PluginLoaderTest, ConfigUnknownSettingSuggestsTheKnownOne) {
  auto& r = record("good");
  r.entry.settings.values = {{"greting", "hi"}};
  auto error = load(r);
  expectFailure(error, "config", "good");
  EXPECT_EQ(error->message, "unknown setting 'greting' (did you mean 'greeting'?)");
  EXPECT_EQ(r.instance, nullptr);  // never created
}

TEST_F(PluginLoaderTest, ConfigIntegerSettingRejectsText) {
  auto& r = record("good");
  r.entry.settings.values = {{"count", "abc"}};
  auto error = load(r);
  expectFailure(error, "config", "good");
  EXPECT_EQ(error->message, "setting 'count' must be an integer, got 'abc'");
}

TEST_F(PluginLoaderTest, ConfigListForScalarSetting) {
  auto& r = record("good");
  r.entry.settings.lists = {{"greeting", {"a", "b"}}};
  auto error = load(r);
  expectFailure(error, "config", "good");
  EXPECT_EQ(error->message, "setting 'greeting' must be a string, not a list");
}

TEST_F(PluginLoaderTest, ConfigPluginWithoutSchemaTakesNoSettings) {
  auto& r = record("start_fails");
  r.entry.settings.values = {{"x", "1"}};
  auto error = PluginLoader::probe(r, ids_);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->stage, "config");
  EXPECT_EQ(error->message, "unknown setting 'x' (the plugin takes none)");
}

TEST_F(PluginLoaderTest, CreateReturnsNull) {
  auto& r = record("create_returns_null");
  auto error = load(r);
  expectFailure(error, "create", "create_returns_null");
  EXPECT_THAT(error->message, HasSubstr("create() returned no plugin"));
  EXPECT_EQ(r.instance, nullptr);
}

TEST_F(PluginLoaderTest, CreateThrows) {
  auto& r = record("create_throws");
  auto error = load(r);
  expectFailure(error, "create", "create_throws");
  EXPECT_THAT(error->message, HasSubstr("create() returned no plugin"));
  EXPECT_EQ(routes_.size(), 0u);
}

TEST_F(PluginLoaderTest, StartFailureRollsBackEverything) {
  // State from "earlier plugins": a core route, a template, a group, a command.
  abx::sdk::RouteSpec health;
  health.method = "GET";
  health.path = "/health";
  health.endpoint = "health";
  health.group = "core";
  health.auth_required = false;
  health.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  ASSERT_TRUE(routes_.add(health, "core").isOk());
  auto tmpl = health;
  tmpl.path = "/items/{id}";
  tmpl.endpoint = "items_get";
  ASSERT_TRUE(routes_.add(tmpl, "core").isOk());
  groups_.push_back({{"core", false, "core"}, "core"});
  abx::sdk::CommandSpec cmd;
  cmd.name = "hello";
  cmd.fn = [](const abx::sdk::CommandArgs&) -> abx::sdk::Result<std::string> {
    return std::string("\"hi\"");
  };
  ASSERT_TRUE(services_.commands.add(cmd).isOk());
  const auto routes_before = routes_.size(), groups_before = groups_.size(),
             commands_before = services_.commands.size();

  auto& r = record("start_fails");
  auto error = load(r);
  expectFailure(error, "start", "start_fails");
  EXPECT_EQ(error->message, "backend unavailable on purpose");

  EXPECT_EQ(routes_.size(), routes_before);
  EXPECT_EQ(groups_.size(), groups_before);
  EXPECT_EQ(services_.commands.size(), commands_before);
  EXPECT_FALSE(routes_.match("GET", "/fixture/start_fails"));
  EXPECT_EQ(routes_.findEndpoint("fixture_start_fails"), nullptr);
  EXPECT_TRUE(r.groups.empty());
  EXPECT_EQ(r.instance, nullptr);  // stopped and destroyed
  EXPECT_NE(r.state, "started");
  // What was there before still works.
  auto m = routes_.match("GET", "/health");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route->spec.endpoint, "health");
  EXPECT_TRUE(routes_.match("GET", "/items/1"));
  EXPECT_NE(services_.commands.find("hello"), nullptr);

  // The failed plugin's id, group and route are free for the next plugin.
  auto& good = record("good");
  ASSERT_FALSE(load(good));
  EXPECT_EQ(routes_.size(), routes_before + 1);
  EXPECT_EQ(groups_.size(), groups_before + 1);
}

TEST(PluginLoaderFingerprint, ParseFingerprint) {
  auto parts = PluginLoader::parseFingerprint("a=1;b=two;junk;c=;=x");
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], (std::pair<std::string, std::string>{"a", "1"}));
  EXPECT_EQ(parts[1], (std::pair<std::string, std::string>{"b", "two"}));
  EXPECT_EQ(parts[2], (std::pair<std::string, std::string>{"c", ""}));
  EXPECT_EQ(parts[3], (std::pair<std::string, std::string>{"", "x"}));
  EXPECT_TRUE(PluginLoader::parseFingerprint("").empty());
}

TEST(PluginLoaderFingerprint, CompareFingerprints) {
  const std::string host = "stdlib=libstdc++-13;cxx11abi=1;debug=0;ptr=64;cc=gcc-13";
  std::string warning;
  EXPECT_FALSE(PluginLoader::compareFingerprints(host, host, &warning));
  EXPECT_EQ(warning, "");
  EXPECT_FALSE(
      PluginLoader::compareFingerprints(ABX_BUILD_FINGERPRINT, ABX_BUILD_FINGERPRINT, nullptr));

  // A different compiler only warns.
  auto clang = "stdlib=libstdc++-13;cxx11abi=1;debug=0;ptr=64;cc=clang-18";
  EXPECT_FALSE(PluginLoader::compareFingerprints(host, clang, &warning));
  EXPECT_EQ(warning, "built with clang-18, the server with gcc-13");
  EXPECT_FALSE(PluginLoader::compareFingerprints(host, clang, nullptr));

  auto dual = PluginLoader::compareFingerprints(
      host, "stdlib=libstdc++-13;cxx11abi=0;debug=0;ptr=64;cc=gcc-13", nullptr);
  ASSERT_TRUE(dual);
  EXPECT_THAT(*dual, StartsWith("build fingerprint mismatch on cxx11abi: plugin 0, server 1"));

  auto ptr = PluginLoader::compareFingerprints(
      host, "stdlib=libstdc++-13;cxx11abi=1;debug=0;ptr=32;cc=gcc-13", nullptr);
  ASSERT_TRUE(ptr);
  EXPECT_THAT(*ptr, HasSubstr("mismatch on ptr: plugin 32, server 64"));

  auto debug = PluginLoader::compareFingerprints(
      host, "stdlib=libstdc++-13;cxx11abi=1;debug=1;ptr=64;cc=gcc-13", nullptr);
  ASSERT_TRUE(debug);
  EXPECT_THAT(*debug, HasSubstr("mismatch on debug"));

  auto empty = PluginLoader::compareFingerprints(host, "", nullptr);
  ASSERT_TRUE(empty);
  EXPECT_THAT(*empty, HasSubstr("mismatch on stdlib: plugin <missing>"));
}

TEST(SettingsSchema, Validation) {
  const char* schema =
      R"({"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"},)"
      R"("ratio":{"type":"number"},"on":{"type":"boolean"},"tags":{"type":"array"},)"
      R"("any":{}},"required":["name"]})";
  abx::sdk::Settings s;
  s.values = {{"name", "x"}, {"n", "12"}, {"ratio", "0.5"}, {"on", "true"}, {"any", "v"}};
  s.lists = {{"tags", {"a"}}};
  EXPECT_EQ(validateSettings(schema, s), std::nullopt);

  auto with = [&](const char* key, const char* value) {
    auto copy = s;
    copy.values[key] = value;
    return validateSettings(schema, copy).value_or("<ok>");
  };
  EXPECT_EQ(with("n", "1.5"), "setting 'n' must be an integer, got '1.5'");
  EXPECT_EQ(with("n", ""), "setting 'n' must be an integer, got ''");
  EXPECT_EQ(with("ratio", "fast"), "setting 'ratio' must be a number, got 'fast'");
  EXPECT_EQ(with("ratio", "3"), "<ok>");
  EXPECT_EQ(with("on", "yes"), "setting 'on' must be true or false, got 'yes'");
  auto scalar_tags = s;
  scalar_tags.lists.erase("tags");
  scalar_tags.values["tags"] = "a";
  EXPECT_EQ(validateSettings(schema, scalar_tags), "setting 'tags' must be a list");

  auto missing = s;
  missing.values.erase("name");
  EXPECT_EQ(validateSettings(schema, missing), "missing required setting 'name'");
  EXPECT_EQ(validateSettings(nullptr, abx::sdk::Settings{}), std::nullopt);
  EXPECT_EQ(validateSettings("{not json", s), "the plugin's config schema is not valid JSON");
}

TEST(SettingsSchema, EnvironmentAndDefaults) {
  const char* schema =
      R"({"type":"object","properties":{"name":{"type":"string","default":"anon"},)"
      R"("max_items":{"type":"integer","default":5},"on":{"type":"boolean"},)"
      R"("tags":{"type":"array"},"size":{"type":"integer","x-env":["OLD_SIZE"]}}})";
  std::map<std::string, std::string> vars;
  auto env = [&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  using abx::kernel::resolveSettings;
  EXPECT_EQ(abx::kernel::settingsEnvPrefix("com.acme.adapter.foo-bar"), "ABX_FOO_BAR_");
  EXPECT_EQ(abx::kernel::settingsEnvPrefix("abx.agents"), "ABX_AGENTS_");

  // Defaults fill what neither the manifest nor the environment set.
  abx::sdk::Settings manifest;
  manifest.values = {{"max_items", "7"}};
  auto plain = resolveSettings(schema, "abx.demo", manifest, env);
  ASSERT_TRUE(plain) << plain.status().message();
  EXPECT_EQ(plain->get("name"), "anon");
  EXPECT_EQ(plain->integer("max_items"), 7);
  EXPECT_EQ(plain->boolean("on"), std::nullopt);

  // ABX_<PLUGIN>_<KEY> beats the manifest; x-env names work; lists split on commas.
  vars = {{"ABX_DEMO_MAX_ITEMS", "9"},
          {"ABX_DEMO_ON", "Yes"},
          {"ABX_DEMO_TAGS", "a, b,,c"},
          {"OLD_SIZE", "12"},
          {"ABX_DEMO_NAME", ""}};
  auto env_set = resolveSettings(schema, "abx.demo", manifest, env);
  ASSERT_TRUE(env_set) << env_set.status().message();
  EXPECT_EQ(env_set->integer("max_items"), 9);
  EXPECT_EQ(env_set->boolean("on"), true);
  EXPECT_EQ(env_set->list("tags"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(env_set->integer("size"), 12);
  EXPECT_EQ(env_set->get("name"), "anon");  // an empty variable is unset

  // A bad value names the variable it came from.
  vars = {{"ABX_DEMO_MAX_ITEMS", "many"}};
  auto bad = resolveSettings(schema, "abx.demo", manifest, env);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(),
            "ABX_DEMO_MAX_ITEMS: setting 'max_items' must be an integer, got 'many'");
  vars = {{"ABX_DEMO_ON", "maybe"}};
  bad = resolveSettings(schema, "abx.demo", manifest, env);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(),
            "ABX_DEMO_ON: setting 'on' must be 1/0, true/false, yes/no or on/off, got 'maybe'");
  // The manifest is still checked first: unknown keys refused.
  manifest.values = {{"nmae", "x"}};
  bad = resolveSettings(schema, "abx.demo", manifest, env);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(), "unknown setting 'nmae' (did you mean 'name'?)");
}

// ---------------------------------------------------------------- manifest

class ManifestTest : public ::testing::Test {
 protected:
  abx::sdk::Result<abx::kernel::Manifest> load(const std::string& yaml,
                                               std::optional<std::string> adapters = std::nullopt) {
    path_ = dir_.write("plugins.yaml", yaml);
    return loadManifest(path_, adapters);
  }
  std::string error(const std::string& yaml, std::optional<std::string> adapters = std::nullopt) {
    auto m = load(yaml, std::move(adapters));
    EXPECT_FALSE(m.isOk());
    if (m.isOk()) return "<ok>";
    EXPECT_EQ(m.status().type(), "ConfigError");
    EXPECT_THAT(m.status().message(), StartsWith(path_ + ": "));
    return m.status().message().substr(path_.size() + 2);
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(ManifestTest, EntriesWithDefaultsAndFlags) {
  auto m = load(R"(
plugins:
  - name: files
    file: abx_files.so
  - name: browser
    file: /opt/abx/abx_browser.so
    id: abx.browser
    enabled: false
    required: false
)");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_EQ(m->path, path_);
  ASSERT_EQ(m->entries.size(), 2u);
  const auto& files = m->entries[0];
  EXPECT_EQ(files.name, "files");
  EXPECT_EQ(files.file, "abx_files.so");
  EXPECT_FALSE(files.id);
  EXPECT_TRUE(files.enabled);
  EXPECT_TRUE(files.required);
  EXPECT_FALSE(files.override_);
  EXPECT_EQ(files.origin, "manifest");
  EXPECT_EQ(files.settings.manifest_dir, fs::path(dir_.path()).string());
  const auto& browser = m->entries[1];
  EXPECT_EQ(browser.id, "abx.browser");
  EXPECT_FALSE(browser.enabled);
  EXPECT_FALSE(browser.required);
}

TEST_F(ManifestTest, UnknownKeysSuggestTheRightOne) {
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n    requred: false\n"),
            "plugins[0]: unknown key 'requred' (did you mean 'required'?)");
  EXPECT_EQ(error("plugin:\n  - name: a\n"), "unknown key 'plugin' (did you mean 'plugins'?)");
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n  - name: b\n    file: b.so\n"
                  "    setings: {}\n"),
            "plugins[1]: unknown key 'setings' (did you mean 'settings'?)");
}

TEST_F(ManifestTest, NameAndFileAreRequired) {
  EXPECT_EQ(error("plugins:\n  - file: a.so\n"), "plugins[0]: 'name' is required");
  EXPECT_EQ(error("plugins:\n  - name: a\n"), "plugins[0]: 'file' is required");
  EXPECT_EQ(error("plugins:\n  - name: [a]\n    file: a.so\n"), "plugins[0]: 'name' is required");
}

TEST_F(ManifestTest, ShapeErrors) {
  EXPECT_EQ(error("plugins: abc\n"), "'plugins' must be a list");
  EXPECT_EQ(error("- a\n- b\n"), "the manifest must be a mapping with a 'plugins' list");
  EXPECT_EQ(error("plugins:\n  - just-a-string\n"), "plugins[0] must be a mapping");
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n    enabled: maybe\n"),
            "plugins[0] (a): 'enabled' must be true or false");
  EXPECT_THAT(error("plugins: [\n"), StartsWith("invalid YAML"));
  auto missing = loadManifest(dir_.path() + "/nope.yaml", std::nullopt);
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot read the plugin manifest"));
}

TEST_F(ManifestTest, EmptyManifestHasNoEntries) {
  auto m = load("");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  EXPECT_TRUE(m->entries.empty());
  auto n = load("plugins:\n");
  ASSERT_TRUE(n.isOk()) << n.status().message();
  EXPECT_TRUE(n->entries.empty());
}

TEST_F(ManifestTest, NameClashIsAnError) {
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n  - name: a\n    file: b.so\n"),
            "plugin 'a' (manifest) is already defined; add 'override: true' to replace it");
}

TEST_F(ManifestTest, OverrideReplacesInPlace) {
  auto m = load(R"(
plugins:
  - name: a
    file: a.so
  - name: b
    file: b.so
  - name: a
    file: a2.so
    override: true
    required: false
)");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->entries.size(), 2u);
  EXPECT_EQ(m->entries[0].name, "a");
  EXPECT_EQ(m->entries[0].file, "a2.so");
  EXPECT_FALSE(m->entries[0].required);
  EXPECT_TRUE(m->entries[0].override_);
  EXPECT_EQ(m->entries[1].name, "b");
}

TEST_F(ManifestTest, AdapterModulesAreAppendedAsRequired) {
  auto m = load(R"(
plugins:
  - name: agents
    file: abx_agents.so
    required: false
)",
                std::string(" /opt/x/abx_adapter_foo.so , ./rel/bar.so,,  "));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->entries.size(), 3u);
  EXPECT_EQ(m->entries[0].name, "agents");
  const auto& foo = m->entries[1];
  EXPECT_EQ(foo.name, "abx_adapter_foo");
  EXPECT_EQ(foo.file, "/opt/x/abx_adapter_foo.so");
  EXPECT_TRUE(foo.required);
  EXPECT_TRUE(foo.enabled);
  EXPECT_EQ(foo.origin, "ABX_AGENTS_ADAPTER_MODULES");
  const auto& bar = m->entries[2];
  EXPECT_EQ(bar.name, "bar");
  EXPECT_EQ(bar.file, "./rel/bar.so");
  EXPECT_TRUE(bar.required);

  // Only adapter modules, with an empty manifest.
  auto only = load("", std::string("x.so"));
  ASSERT_TRUE(only.isOk());
  ASSERT_EQ(only->entries.size(), 1u);
  EXPECT_EQ(only->entries[0].name, "x");
}

TEST_F(ManifestTest, AdapterModuleClashingWithManifestNameIsAnError) {
  auto message = error("plugins:\n  - name: codex\n    file: abx_adapter_codex.so\n",
                       std::string("/elsewhere/codex.so"));
  EXPECT_EQ(message,
            "plugin 'codex' (ABX_AGENTS_ADAPTER_MODULES) is already defined; add 'override: "
            "true' to replace it");
}

TEST_F(ManifestTest, SettingsScalarsAndLists) {
  auto m = load(R"(
plugins:
  - name: a
    file: a.so
    settings:
      greeting: hello
      count: 3
      on: true
      tags: [x, "y z"]
      nothing: ~
)");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  const auto& s = m->entries[0].settings;
  EXPECT_EQ(s.values.size(), 3u);
  EXPECT_EQ(s.values.at("greeting"), "hello");
  EXPECT_EQ(s.values.at("count"), "3");
  EXPECT_EQ(s.values.at("on"), "true");
  EXPECT_EQ(s.lists.at("tags"), (std::vector<std::string>{"x", "y z"}));
  EXPECT_EQ(s.values.count("nothing") + s.lists.count("nothing"), 0u);
  EXPECT_EQ(s.get("greeting"), "hello");
  EXPECT_EQ(s.get("none"), std::nullopt);

  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n    settings:\n      deep: {x: 1}\n"),
            "plugins[0] (a): settings.deep: nested mappings are not supported");
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n    settings:\n      l: [[1]]\n"),
            "plugins[0] (a): settings.l: list items must be scalars");
  EXPECT_EQ(error("plugins:\n  - name: a\n    file: a.so\n    settings: [1]\n"),
            "plugins[0] (a): 'settings' must be a mapping");
}

TEST_F(ManifestTest, SettingsPathsResolveAgainstTheManifestDir) {
  auto m = load(
      "plugins:\n  - name: a\n    file: a.so\n    settings:\n      rel: data/x\n"
      "      abs: /etc/x\n");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  const auto& s = m->entries[0].settings;
  EXPECT_EQ(s.path("rel"), fs::path(dir_.path()).string() + "/data/x");
  EXPECT_EQ(s.path("abs"), "/etc/x");
}

TEST(ResolvePluginFile, RelativeAgainstPluginDirAbsoluteAsIs) {
  ManifestEntry e;
  e.file = "abx_files.so";
  EXPECT_EQ(resolvePluginFile(e, "/opt/abx/plugins"), "/opt/abx/plugins/abx_files.so");
  e.file = "sub/../other/./x.so";
  EXPECT_EQ(resolvePluginFile(e, "/opt/abx/plugins"), "/opt/abx/plugins/other/x.so");
  e.file = "/usr/lib/abx/./y.so";
  EXPECT_EQ(resolvePluginFile(e, "/opt/abx/plugins"), "/usr/lib/abx/y.so");
  e.file = "z.so";
  auto relative_dir = resolvePluginFile(e, "plugins");
  EXPECT_TRUE(fs::path(relative_dir).is_absolute());
  EXPECT_EQ(relative_dir, (fs::current_path() / "plugins" / "z.so").string());
}

}  // namespace
