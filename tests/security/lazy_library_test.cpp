// Attack: the files plugin opens libarchive, the browser plugin ICU, and the
// agents plugin libcrypto, by soname on first use (dlopen), long after start. A caller, agent or
// child that can write into the server's working directory or the base dir plants a library under
// that soname (and under the names of what it pulls in) before the first archive / the first IDN
// host / the first sealed secret. If any search path of the dynamic linker names the working
// directory — an empty or relative RUNPATH entry, which CMake's padded build RPATH ("<dir>:") is —
// the server runs the attacker's code. The planted library (abx_test_planted) appends to
// $ABX_TEST_PLANTED_MARK when loaded: the mark must never appear, nothing
// may be mapped from the attacker's directories, and the operation must still
// work with the real library.
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "abx/sdk/version.h"
#include "security/security_support.h"
#include "security/tool_confinement_support.h"

namespace abx::testing::security {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;

/** DT_SONAME and the search-path entries (DT_RUNPATH, DT_RPATH; empty ones kept) of a file. */
struct DynamicNames {
  std::string soname;
  std::vector<std::string> search_path;
};

std::string readAt(std::ifstream& in, std::uint64_t offset, std::uint64_t size) {
  std::string bytes(size, '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) throw std::runtime_error("short ELF read");
  return bytes;
}

std::vector<std::string> splitColons(const std::string& text) {
  std::vector<std::string> parts;
  std::string::size_type from = 0;
  for (auto at = text.find(':'); at != std::string::npos; at = text.find(':', from = at + 1))
    parts.push_back(text.substr(from, at - from));
  parts.push_back(text.substr(from));
  return parts;
}

/** The names in the dynamic section of the ELF64 file @p path (section headers). */
DynamicNames dynamicNames(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  if (!in || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error("not an ELF64 file: " + path);
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  const std::string table = readAt(in, header.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  std::memcpy(sections.data(), table.data(), table.size());
  DynamicNames names;
  for (const auto& section : sections) {
    if (section.sh_type != SHT_DYNAMIC) continue;
    const auto& strtab = sections.at(section.sh_link);
    const std::string strings = readAt(in, strtab.sh_offset, strtab.sh_size);
    const std::string entries = readAt(in, section.sh_offset, section.sh_size);
    for (std::size_t at = 0; at + sizeof(Elf64_Dyn) <= entries.size(); at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      std::memcpy(&entry, entries.data() + at, sizeof entry);
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_un.d_val >= strings.size()) continue;
      const std::string text = strings.c_str() + entry.d_un.d_val;
      if (entry.d_tag == DT_SONAME) names.soname = text;
      if (entry.d_tag == DT_RUNPATH || entry.d_tag == DT_RPATH)
        for (auto& part : splitColons(text)) names.search_path.push_back(part);
    }
  }
  return names;
}

/** The files @p pid maps (/proc/<pid>/maps), by path. */
std::set<std::string> mappedFiles(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::set<std::string> files;
  for (std::string line; std::getline(maps, line);) {
    const auto slash = line.find('/');
    if (slash != std::string::npos) files.insert(line.substr(slash));
  }
  return files;
}

const std::regex kSharedLibrary(R"(\.so(\.[0-9.]+)?$)");

/** The sonames of the shared libraries @p pid maps. */
std::set<std::string> mappedSonames(pid_t pid) {
  std::set<std::string> sonames;
  for (const auto& file : mappedFiles(pid))
    if (std::regex_search(file, kSharedLibrary) && fs::is_regular_file(file))
      if (auto soname = dynamicNames(file).soname; !soname.empty()) sonames.insert(soname);
  return sonames;
}

/** The sonames a clean server maps at idle, and those @p first_use adds. */
struct Sonames {
  std::set<std::string> idle;
  std::set<std::string> first_use;
};

const std::string kPolicy =
    "endpoints:\n  browser_navigate:\n    params: {url_allow: [\"127.0.0.1\"]}\n";

ServerOptions everyPlugin(const std::string& cwd) {
  auto o = allPlugins(kPolicy, {{"ABX_SERVER_ENABLED_GROUPS", "browser,agents"},
                                {"ABX_AGENTS_STATE_DIR", "{dir}/state"},
                                {"ABX_AGENTS_STATE_KEY", std::string(64, 'a')},
                                {"ABX_TEST_PLANTED_MARK", "{dir}/planted.mark"}});
  o.files["note.txt"] = "archived\n";
  o.cwd = cwd;
  return o;
}

using FirstUse = std::function<void(int port)>;

Sonames scout(const FirstUse& first_use) {
  ServerProcess server(everyPlugin(""));
  Sonames s;
  s.idle = mappedSonames(server.pid());
  first_use(server.port());
  for (const auto& soname : mappedSonames(server.pid()))
    if (!s.idle.contains(soname)) s.first_use.insert(soname);
  return s;
}

void archiveOnce(int port) {
  auto r = http(port, "POST", "/files/archive", R"({"paths":["note.txt"]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr("\"files\":1")) << r.body;
}

void idnHostOnce(int port) {
  // ICU maps the host (UTS #46) before the URL policy refuses it; the
  // refusal names the mapped host, so a 403 proves the real ICU ran.
  auto r = http(port, "POST", "/browser/navigate",
                "{\"url\":\"http://b\xC3\xBC"
                "cher.example/\"}");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, HasSubstr("xn--bcher-kva.example")) << r.body;
}

void sealOnce(int port) {
  // A vault credential's secret is sealed into the agents' state file.
  auto vault = http(port, "POST", "/v1/vaults", R"({"name":"keys"})");
  ASSERT_EQ(vault.status, 200) << vault.body;
  std::smatch id;
  ASSERT_TRUE(std::regex_search(vault.body, id, std::regex(R"re("id":"([^"]+)")re"))) << vault.body;
  auto credential = http(port, "POST", "/v1/vaults/" + id[1].str() + "/credentials",
                         R"({"name":"k","auth":{"type":"environment_variable",)"
                         R"("secret_name":"K","secret_value":"sealed-canary-51e0"}})");
  ASSERT_EQ(credential.status, 200) << credential.body;
}

/** A directory the attacker can write to, removed at the end. */
class AttackerDir {
 public:
  AttackerDir() {
    char name[] = "/tmp/abx-planted-XXXXXX";
    if (!::mkdtemp(name)) throw std::runtime_error("mkdtemp failed");
    path_ = name;
  }
  ~AttackerDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/** Copies the planted library into @p dir under each of @p sonames. */
void plant(const std::string& dir, const std::set<std::string>& sonames) {
  fs::create_directories(dir);
  for (const auto& soname : sonames)
    fs::copy_file(fixtureDir() + "/abx_test_planted.so", dir + "/" + soname,
                  fs::copy_options::overwrite_existing);
}

/** Nothing planted ran, and nothing is mapped from @p dirs. */
void expectNothingPlantedLoaded(ServerProcess& server, const std::vector<std::string>& dirs) {
  const std::string mark = server.dir() + "/planted.mark";
  std::ifstream in(mark);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(fs::exists(mark)) << text.str();
  for (const auto& file : mappedFiles(server.pid()))
    for (const auto& dir : dirs)
      EXPECT_FALSE(file.starts_with(dir + "/")) << "mapped from an attacker's directory: " << file;
}

/** Where the attacker puts the library. */
enum class Planted {
  /** Written into the server's working directory (any local writer). */
  InWorkingDirectory,
  /** Uploaded by a remote caller (POST /upload) into the base dir, which is
   *  also the server's working directory: where the archived file is. */
  UploadedIntoBaseDir,
};

/** The planted library's bytes. */
std::string plantedLibrary() {
  std::ifstream in(fixtureDir() + "/abx_test_planted.so", std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/**
 * Plants what @p first_use loads (and @p dlopened, the name the plugin asks
 * for) where @p planted says, then runs @p first_use for the first time.
 */
void attackFirstUse(const FirstUse& first_use, const std::string& dlopened, Planted planted) {
  const Sonames sonames = scout(first_use);
  ASSERT_THAT(sonames.first_use, Contains(dlopened)) << "the scout did not see the first use";
  std::set<std::string> names = sonames.first_use;
  names.insert(dlopened);
  AttackerDir cwd;
  const bool by_upload = planted == Planted::UploadedIntoBaseDir;
  if (!by_upload) plant(cwd.path(), names);
  ServerProcess server(everyPlugin(by_upload ? "{dir}" : cwd.path()));
  if (by_upload) {
    for (const auto& name : names) ASSERT_EQ(upload(server, name, plantedLibrary()), 200) << name;
  }
  first_use(server.port());
  first_use(server.port());  // and again, now that it is loaded
  expectNothingPlantedLoaded(server, {cwd.path(), server.dir()});
}

TEST(SecurityLazyLibrary, FirstArchiveIgnoresLibarchivePlantedInTheWorkingDirectory) {
  attackFirstUse(archiveOnce, ABX_LIBARCHIVE_SONAME, Planted::InWorkingDirectory);
}

TEST(SecurityLazyLibrary, FirstArchiveIgnoresLibarchiveUploadedIntoTheBaseDir) {
  attackFirstUse(archiveOnce, ABX_LIBARCHIVE_SONAME, Planted::UploadedIntoBaseDir);
}

TEST(SecurityLazyLibrary, FirstIdnHostIgnoresIcuPlantedInTheWorkingDirectory) {
  attackFirstUse(idnHostOnce, ABX_ICU_UC_SONAME, Planted::InWorkingDirectory);
}

TEST(SecurityLazyLibrary, FirstIdnHostIgnoresIcuUploadedIntoTheBaseDir) {
  attackFirstUse(idnHostOnce, ABX_ICU_UC_SONAME, Planted::UploadedIntoBaseDir);
}

TEST(SecurityLazyLibrary, FirstSealIgnoresLibcryptoPlantedInTheWorkingDirectory) {
  attackFirstUse(sealOnce, ABX_LIBCRYPTO_SONAME, Planted::InWorkingDirectory);
}

TEST(SecurityLazyLibrary, FirstSealIgnoresLibcryptoUploadedIntoTheBaseDir) {
  attackFirstUse(sealOnce, ABX_LIBCRYPTO_SONAME, Planted::UploadedIntoBaseDir);
}

// The neighbour: what the server and its plugins link are looked up at
// start by the same rules; a library planted in the working directory before
// a restart must not be loaded either.
TEST(SecurityLazyLibrary, StartIgnoresLibrariesPlantedInTheWorkingDirectory) {
  const Sonames sonames = scout([](int) {});
  ASSERT_THAT(sonames.idle, Contains("libabx_plugin_sdk.so.2"));
  AttackerDir cwd;
  plant(cwd.path(), sonames.idle);
  ServerProcess server(everyPlugin(cwd.path()));
  EXPECT_EQ(http(server.port(), "GET", "/ready").status, 200);
  expectNothingPlantedLoaded(server, {cwd.path()});
}

// What makes the attacks above possible, checked on the files themselves:
// no search-path entry of the server or of a plugin may depend on the
// working directory (empty or relative), and $ORIGIN may only name the
// directory that holds the plugin SDK library the server runs with.
TEST(SecurityLazyLibrary, SearchPathsNameNoWorkingDirectory) {
  // Plugins live in <libdir>/agent-sandbox/plugins, the SDK in <libdir>.
  // The SDK's SONAME carries its ABI major.
  const std::string soname = "libabx_plugin_sdk.so." + std::to_string(ABX_SDK_ABI_MAJOR);
  const fs::path sdk = fs::path(pluginDir()).parent_path().parent_path() / soname;
  std::vector<fs::path> files = {serverBinary(), sdk};
  for (const auto& entry : fs::directory_iterator(pluginDir()))
    if (entry.path().extension() == ".so") files.push_back(entry.path());
  ASSERT_GT(files.size(), 10u);
  for (const auto& file : files) {
    for (const auto& entry : dynamicNames(file).search_path) {
      SCOPED_TRACE(file.string() + ": '" + entry + "'");
      if (entry.empty()) {
        ADD_FAILURE() << "an empty entry is the working directory";
      } else if (entry.starts_with("$ORIGIN")) {
        const fs::path dir = file.parent_path() / fs::path(entry.substr(7)).relative_path();
        EXPECT_TRUE(fs::exists(dir / soname)) << dir;
      } else {
        EXPECT_TRUE(entry.starts_with("/")) << "a relative entry starts at the working directory";
      }
    }
  }
}

}  // namespace
}  // namespace abx::testing::security
