// Integration: the files plugin in the real server, base dir = the
// server's temp dir. Every route over HTTP with its errors, the guard's
// denials, policy limits and params, binary round trips, archives read back
// with libarchive, and a hostile tree listed, searched and archived.
#include <Poco/Base64Decoder.h>
#include <Poco/Base64Encoder.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "plugins/files/files_test_support.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

/** Lists an archive's members (name -> type, content) with libarchive. */
std::map<std::string, std::pair<unsigned, std::string>> listArchive(const std::string& bytes) {
  std::map<std::string, std::pair<unsigned, std::string>> out;
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  EXPECT_EQ(archive_read_open_memory(a, bytes.data(), bytes.size()), ARCHIVE_OK);
  struct archive_entry* e;
  int rc;
  while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
    std::string data;
    char buf[8192];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0)
      data.append(buf, static_cast<std::size_t>(n));
    std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "?";
    if (name.size() > 1 && name.back() == '/') name.pop_back();
    out[name] = {archive_entry_filetype(e), data};
  }
  EXPECT_EQ(rc, ARCHIVE_EOF) << archive_error_string(a);
  archive_read_free(a);
  return out;
}

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.emplace(ServerOptions{kManifest}); }
  int port() { return server_->port(); }
  std::string dir() { return server_->dir(); }
  HttpResult get(const std::string& target) { return http(port(), "GET", target); }
  HttpResult post(const std::string& target, const std::string& body) {
    return http(port(), "POST", target, body);
  }
  std::optional<ServerProcess> server_;
};

// ------------------------------------------------------------ round trips --

TEST_F(FilesTest, BinaryRoundTripThroughUploadAndDownload) {
  const std::string data = randomBytes(1u << 20, 1);
  auto up = post("/upload", uploadBody("bin/data.bin", data));
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_EQ(up.body, "{\"path\":\"" + dir() + "/bin/data.bin\",\"bytes\":1048576}");
  EXPECT_EQ(readFile(dir() + "/bin/data.bin"), data);
  struct stat st;
  ASSERT_EQ(::stat((dir() + "/bin/data.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  auto down = get("/download?path=bin/data.bin");
  ASSERT_EQ(down.status, 200);
  EXPECT_EQ(down.headers["content-length"], std::to_string(down.body.size()));
  auto o = parse(down.body);
  EXPECT_EQ(o->getValue<std::string>("path"), dir() + "/bin/data.bin");
  EXPECT_FALSE(o->has("bytes"));
  EXPECT_EQ(unb64(o->getValue<std::string>("content_base64")), data);
}

TEST_F(FilesTest, BinaryRoundTripThroughTheStreamingRoutes) {
  const std::string data = randomBytes((1u << 20) + 1, 2);
  auto up = post("/files/upload-stream", uploadBody(dir() + "/s/data.bin", data));
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_EQ(parse(up.body)->getValue<std::uint64_t>("bytes"), data.size());
  auto down = get("/files/download-stream?path=" + enc(dir() + "/s/data.bin"));
  ASSERT_EQ(down.status, 200);
  auto o = parse(down.body);
  EXPECT_EQ(o->getValue<std::uint64_t>("bytes"), data.size());
  EXPECT_EQ(unb64(o->getValue<std::string>("content_base64")), data);
  // Every byte value, including a file of 0 bytes.
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  ASSERT_EQ(post("/files/upload-stream", uploadBody("all", all)).status, 200);
  EXPECT_EQ(readFile(dir() + "/all"), all);
  ASSERT_EQ(post("/upload", uploadBody("empty", "")).status, 200);
  auto empty = get("/files/download-stream?path=empty");
  EXPECT_EQ(empty.body, "{\"path\":\"" + dir() + "/empty\",\"content_base64\":\"\",\"bytes\":0}");
}

TEST_F(FilesTest, UploadAcceptsContentBeforePathAndEscapedWrappedBase64) {
  const std::string data = randomBytes(200000, 3);
  std::string text = b64(data), wire;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i && i % 76 == 0) wire += "\\n";
    wire += text[i] == '/' ? "\\/" : std::string(1, text[i]);
  }
  auto up = post("/upload", "{\"content_base64\":\"" + wire +
                                "\",\"mode\":1,\"path\":\"later/\\u00e9t\\u00e9.bin\"}");
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_EQ(readFile(dir() + "/later/\xC3\xA9t\xC3\xA9.bin"), data);
}

TEST_F(FilesTest, UploadReplacesAnExistingFileWhole) {
  writeFile(dir() + "/f.txt", "old content");
  ASSERT_EQ(post("/upload", uploadBody("f.txt", "new")).status, 200);
  EXPECT_EQ(readFile(dir() + "/f.txt"), "new");
}

// ----------------------------------------------------------- upload errors --

TEST_F(FilesTest, UploadErrors) {
  auto missing_path = post("/upload", R"({"content_base64":"QUJD"})");
  EXPECT_EQ(missing_path.status, 400);
  EXPECT_EQ(missing_path.body, R"({"error":"Missing required field 'path'","type":"ValueError"})");
  auto missing_content = post("/upload", R"({"path":"x"})");
  EXPECT_EQ(missing_content.status, 400);
  EXPECT_THAT(missing_content.body, HasSubstr("Missing required field 'content_base64'"));
  EXPECT_EQ(post("/upload", R"({"path":5,"content_base64":"QUJD"})").body,
            R"({"error":"Field 'path' must be a string","type":"ValueError"})");
  EXPECT_EQ(post("/upload", R"({"path":"x","content_base64":5})").status, 400);
  auto bad_b64 = post("/files/upload-stream", R"({"path":"bad.bin","content_base64":"QU*D"})");
  EXPECT_EQ(bad_b64.status, 400);
  EXPECT_THAT(bad_b64.body, HasSubstr("Invalid base64 content"));
  EXPECT_EQ(post("/upload", R"({"path":"bad2.bin","content_base64":"QUJ"})").status, 400);
  auto bad_json = post("/upload", R"({"path":"bad3.bin","content_base64":"QUJD")");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_THAT(bad_json.body, HasSubstr("Invalid JSON"));
  EXPECT_EQ(post("/upload", "[1]").status, 400);
  EXPECT_EQ(post("/upload", "").status, 400);
  fs::create_directory(dir() + "/adir");
  auto onto_dir = post("/upload", uploadBody("adir", "x"));
  EXPECT_EQ(onto_dir.status, 400);
  EXPECT_THAT(onto_dir.body, HasSubstr("IsADirectoryError"));
  for (const char* name : {"bad.bin", "bad2.bin", "bad3.bin"})
    EXPECT_FALSE(fs::exists(dir() + "/" + name)) << name;
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".abx-tmp-")));
}

TEST_F(FilesTest, GuardDenialsOnEveryRoute) {
  fs::create_symlink("/etc", dir() + "/etc-link");
  fs::create_symlink("/etc/passwd", dir() + "/passwd-link");
  const std::string no = R"("type":"PermissionError","code":"path_not_allowed"})";
  auto up = post("/upload", uploadBody("/etc/abx-should-not-exist", "x"));
  EXPECT_EQ(up.status, 403);
  EXPECT_EQ(up.body, R"({"error":"Path not allowed: /etc/abx-should-not-exist",)" + no);
  EXPECT_EQ(post("/upload", uploadBody("../escape.txt", "x")).status, 403);
  EXPECT_FALSE(fs::exists(fs::path(dir()).parent_path() / "escape.txt"));
  EXPECT_EQ(post("/files/upload-stream", uploadBody("etc-link/x", "x")).status, 403);
  auto proc = get("/download?path=/proc/self/environ");
  EXPECT_EQ(proc.status, 403);
  EXPECT_THAT(proc.body, HasSubstr(R"("code":"path_denied")"));
  EXPECT_EQ(get("/download?path=/etc/passwd").status, 403);
  EXPECT_EQ(get("/download?path=passwd-link").status, 403);
  EXPECT_EQ(get("/files/download-stream?path=../../etc/passwd").status, 403);
  EXPECT_EQ(get("/files/list?path=/etc").status, 403);
  EXPECT_EQ(get("/files/list?path=etc-link").status, 403);
  EXPECT_EQ(get("/files/stat?path=/etc/passwd").status, 403);
  EXPECT_EQ(get("/files/stat?path=/etc/nonexistent").status, 403);  // no existence oracle
  EXPECT_EQ(post("/files/mkdir", R"({"path":"/tmp/abx-nope"})").status, 403);
  EXPECT_EQ(http(port(), "DELETE", "/files?path=/etc/passwd").status, 403);
  EXPECT_EQ(http(port(), "DELETE", "/files?path=" + enc(dir())).status, 403);  // the base itself
  EXPECT_EQ(post("/files/search", R"({"path":"/etc","pattern":"*"})").status, 403);
  EXPECT_EQ(post("/files/archive", R"({"paths":["/etc/passwd"]})").status, 403);
  EXPECT_EQ(post("/files/archive", R"({"paths":["etc-link"]})").status, 403);
  auto src = post("/files/move", R"({"source":"/etc/passwd","destination":"p"})");
  EXPECT_EQ(src.status, 403);
  EXPECT_THAT(src.body, HasSubstr(R"("error":"source: Path not allowed: /etc/passwd")"));
  writeFile(dir() + "/m.txt", "m");
  auto dst = post("/files/move", R"({"source":"m.txt","destination":"/etc/m.txt"})");
  EXPECT_EQ(dst.status, 403);
  EXPECT_THAT(dst.body, HasSubstr(R"("error":"destination: Path not allowed: /etc/m.txt")"));
  EXPECT_TRUE(fs::exists(dir() + "/m.txt"));
  auto invalid = get("/files/stat?path=" + enc(std::string("a\0b", 3)));
  EXPECT_EQ(invalid.status, 400);
}

// ---------------------------------------------------------------- download --

TEST_F(FilesTest, DownloadErrors) {
  EXPECT_EQ(get("/download").status, 400);
  auto missing = get("/download?path=nope.txt");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr(R"("type":"FileNotFoundError")"));
  EXPECT_EQ(get("/files/download-stream?path=nope.txt").status, 404);
  fs::create_directory(dir() + "/d");
  EXPECT_EQ(get("/download?path=d").status, 400);
  ASSERT_EQ(::mkfifo((dir() + "/fifo").c_str(), 0644), 0);
  auto fifo = get("/download?path=fifo");  // must not block on the FIFO
  EXPECT_EQ(fifo.status, 400);
  EXPECT_THAT(fifo.body, HasSubstr("Not a regular file"));
}

// ---------------------------------------------------------- list and stat --

TEST_F(FilesTest, ListDirectory) {
  writeFile(dir() + "/w/b.txt", "12345");
  writeFile(dir() + "/w/.hidden", "h");
  fs::create_directory(dir() + "/w/sub");
  fs::create_symlink("/etc/passwd", dir() + "/w/out-link");
  fs::create_symlink("b.txt", dir() + "/w/in-link");
  auto r = get("/files/list?path=w");
  ASSERT_EQ(r.status, 200) << r.body;
  auto o = parse(r.body);
  auto entries = o->getArray("entries");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < entries->size(); ++i)
    names.push_back(entries->getObject(i)->getValue<std::string>("name"));
  EXPECT_EQ(names, (std::vector<std::string>{".hidden", "b.txt", "in-link", "sub"}));
  auto b = entries->getObject(1);
  EXPECT_EQ(b->getValue<std::string>("type"), "file");
  EXPECT_EQ(b->getValue<int>("size"), 5);
  EXPECT_THAT(b->getValue<std::string>("modified"),
              ::testing::MatchesRegex(
                  R"(20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}(\.[0-9]{6})?\+00:00)"));
  EXPECT_EQ(entries->getObject(3)->getValue<std::string>("type"), "directory");
  EXPECT_FALSE(o->getValue<bool>("truncated"));
  auto visible = parse(get("/files/list?path=w&hidden=false").body)->getArray("entries");
  EXPECT_EQ(visible->size(), 3u);
  EXPECT_EQ(get("/files/list?path=w&hidden=maybe").status, 400);
  auto missing = get("/files/list?path=nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("FileNotFoundError"));
  EXPECT_EQ(get("/files/list?path=w/b.txt").status, 400);
  EXPECT_EQ(get("/files/list").status, 200);  // the base dir
}

TEST_F(FilesTest, StatFileDirectoryLinkAndMissing) {
  writeFile(dir() + "/s.txt", "abc");
  ::chmod((dir() + "/s.txt").c_str(), 0640);
  fs::create_symlink("s.txt", dir() + "/s-link");
  auto f = parse(get("/files/stat?path=s.txt").body);
  EXPECT_EQ(f->getValue<std::string>("name"), "s.txt");
  EXPECT_EQ(f->getValue<std::string>("path"), dir() + "/s.txt");
  EXPECT_EQ(f->getValue<std::string>("type"), "file");
  EXPECT_EQ(f->getValue<int>("size"), 3);
  EXPECT_EQ(f->getValue<std::string>("permissions"), "640");
  EXPECT_TRUE(f->getValue<bool>("exists"));
  EXPECT_EQ(parse(get("/files/stat?path=" + enc(dir())).body)->getValue<std::string>("type"),
            "directory");
  auto l = parse(get("/files/stat?path=s-link").body);
  EXPECT_EQ(l->getValue<std::string>("type"), "symlink");
  EXPECT_EQ(l->getValue<std::string>("path"), dir() + "/s-link");
  auto m = get("/files/stat?path=nope/x");
  EXPECT_EQ(m.status, 200);
  EXPECT_EQ(m.body, "{\"name\":\"x\",\"path\":\"" + dir() +
                        "/nope/x\",\"type\":\"unknown\",\"size\":0,\"permissions\":\"\","
                        "\"modified\":\"\",\"exists\":false}");
  EXPECT_EQ(get("/files/stat").status, 400);
}

// ---------------------------------------------------- mkdir, delete, move --

TEST_F(FilesTest, MkdirCreatesParentsAndIsIdempotent) {
  auto r = post("/files/mkdir", R"({"path":"a/b/c"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "{\"path\":\"" + dir() + "/a/b/c\",\"created\":true}");
  EXPECT_TRUE(fs::is_directory(dir() + "/a/b/c"));
  EXPECT_EQ(post("/files/mkdir", R"({"path":"a/b/c"})").status, 200);
  writeFile(dir() + "/file", "x");
  auto clash = post("/files/mkdir", R"({"path":"file"})");
  EXPECT_EQ(clash.status, 409);
  EXPECT_THAT(clash.body, HasSubstr(R"("code":"file_exists")"));
  EXPECT_EQ(post("/files/mkdir", R"({"path":"file/sub"})").status, 400);
  EXPECT_EQ(post("/files/mkdir", "{}").status, 400);
}

TEST_F(FilesTest, DeleteFilesTreesAndLinks) {
  writeFile(dir() + "/t/x/y.txt", "y");
  writeFile(dir() + "/keep.txt", "k");
  fs::create_symlink(dir() + "/keep.txt", dir() + "/t/link");
  fs::create_symlink("/etc", dir() + "/out-link");
  auto r = http(port(), "DELETE", "/files?path=t");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "{\"path\":\"" + dir() + "/t\",\"deleted\":true}");
  EXPECT_FALSE(fs::exists(dir() + "/t"));
  EXPECT_TRUE(fs::exists(dir() + "/keep.txt"));  // the link went, not its target
  // A link to outside is removed itself; what it names is never touched.
  EXPECT_EQ(http(port(), "DELETE", "/files?path=out-link").status, 200);
  EXPECT_TRUE(fs::exists("/etc/passwd"));
  auto missing = http(port(), "DELETE", "/files?path=t");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("FileNotFoundError"));
  EXPECT_EQ(http(port(), "DELETE", "/files").status, 400);
}

TEST_F(FilesTest, MoveLikeShutilMove) {
  writeFile(dir() + "/a.txt", "a");
  auto r = post("/files/move", R"({"source":"a.txt","destination":"b.txt"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, "{\"source\":\"" + dir() + "/a.txt\",\"destination\":\"" + dir() + "/b.txt\"}");
  EXPECT_EQ(readFile(dir() + "/b.txt"), "a");
  fs::create_directory(dir() + "/into");
  r = post("/files/move", R"({"source":"b.txt","destination":"into"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(readFile(dir() + "/into/b.txt"), "a");
  r = post("/files/move", R"({"source":"into","destination":"new/place"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(readFile(dir() + "/new/place/b.txt"), "a");
  writeFile(dir() + "/c.txt", "c");
  EXPECT_EQ(post("/files/move", R"({"source":"c.txt","destination":"new/place/b.txt"})").status,
            200);  // overwrite is allowed by default
  EXPECT_EQ(readFile(dir() + "/new/place/b.txt"), "c");
  auto missing = post("/files/move", R"({"source":"gone","destination":"x"})");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr(R"("error":"source: File not found: gone")"));
  EXPECT_EQ(post("/files/move", R"({"source":"new","destination":"new/place/deeper"})").status,
            400);
  EXPECT_EQ(post("/files/move", R"({"source":"x"})").status, 400);
}

// ------------------------------------------------------------------ search --

TEST_F(FilesTest, SearchByGlob) {
  writeFile(dir() + "/src/app.py", "");
  writeFile(dir() + "/src/lib/util.py", "");
  writeFile(dir() + "/src/lib/readme.md", "");
  writeFile(dir() + "/docs/x.py", "");
  auto r = post("/files/search", R"({"path":"src","pattern":"*.py"})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto o = parse(r.body);
  auto results = o->getArray("results");
  ASSERT_EQ(results->size(), 2u);
  EXPECT_EQ(results->getObject(0)->getValue<std::string>("name"), "app.py");
  EXPECT_EQ(results->getObject(0)->getValue<std::string>("path"), dir() + "/src/app.py");
  EXPECT_EQ(results->getObject(1)->getValue<std::string>("path"), dir() + "/src/lib/util.py");
  EXPECT_FALSE(o->getValue<bool>("timed_out"));
  EXPECT_FALSE(o->getValue<bool>("truncated"));
  auto limited = parse(post("/files/search", R"({"pattern":"*.py","max_results":1})").body);
  EXPECT_EQ(limited->getArray("results")->size(), 1u);
  EXPECT_TRUE(limited->getValue<bool>("truncated"));
  auto by_path = parse(post("/files/search", R"({"path":"src","pattern":"lib/*.md"})").body);
  EXPECT_EQ(by_path->getArray("results")->size(), 1u);
  auto dirs = parse(post("/files/search", R"({"pattern":"li?"})").body);
  EXPECT_EQ(dirs->getArray("results")->getObject(0)->getValue<std::string>("type"), "directory");
  EXPECT_EQ(post("/files/search", R"({"path":"src"})").status, 400);
  EXPECT_EQ(post("/files/search", R"({"pattern":"*","max_results":0})").status, 400);
  EXPECT_EQ(post("/files/search", R"({"path":"nope","pattern":"*"})").status, 404);
}

// ----------------------------------------------------------------- archive --

TEST_F(FilesTest, ArchivesReadBackWithLibarchive) {
  const std::string data = randomBytes(300000, 5);
  writeFile(dir() + "/proj/bin.dat", data);
  writeFile(dir() + "/proj/sub/a.txt", "A");
  writeFile(dir() + "/single.txt", "S");
  fs::create_symlink("bin.dat", dir() + "/proj/link");
  for (std::string format : {"tar.gz", "zip"}) {
    auto r =
        post("/files/archive", R"({"paths":["proj","single.txt"],"format":")" + format + "\"}");
    ASSERT_EQ(r.status, 200) << r.body;
    auto o = parse(r.body);
    EXPECT_EQ(o->getValue<std::string>("format"), format);
    std::string bytes = unb64(o->getValue<std::string>("content_base64"));
    EXPECT_EQ(o->getValue<std::uint64_t>("bytes"), bytes.size());
    auto members = listArchive(bytes);
    ASSERT_EQ(members.size(), 6u) << format;
    EXPECT_EQ(members["proj"].first, unsigned(AE_IFDIR));
    EXPECT_EQ(members["proj/bin.dat"].second, data);
    EXPECT_EQ(members["proj/sub/a.txt"].second, "A");
    EXPECT_EQ(members["proj/link"].first, unsigned(AE_IFLNK));
    EXPECT_EQ(members["single.txt"].second, "S");
  }
  auto defaulted = parse(post("/files/archive", R"({"paths":["single.txt"]})").body);
  EXPECT_EQ(defaulted->getValue<std::string>("format"), "tar.gz");
  auto bad = post("/files/archive", R"({"paths":["single.txt"],"format":"rar"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr("Unsupported archive format"));
  EXPECT_EQ(post("/files/archive", R"({"paths":["nope"]})").status, 404);
  EXPECT_EQ(post("/files/archive", R"({"paths":[]})").status, 400);
  EXPECT_EQ(post("/files/archive", R"({"paths":"single.txt"})").status, 400);
}

// ------------------------------------------------------------- hostile tree --

TEST_F(FilesTest, HostileTreeIsListedSearchedAndArchivedSafely) {
  const std::string h = dir() + "/hostile";
  writeFile(h + "/ok.txt", "fine");
  writeFile(h + "/new\nline.txt", "nl");
  writeFile(h + "/bad\xff\xfe"
                "utf8.txt",
            "bytes");
  writeFile(h + "/quote\"back\\slash.txt", "q");
  writeFile(h + "/deep/a/b/c/d/e/f.txt", "deep");
  writeFile(h + "/locked.txt", "secret");
  ::chmod((h + "/locked.txt").c_str(), 0);
  ASSERT_EQ(::mkfifo((h + "/fifo").c_str(), 0644), 0);
  fs::create_symlink("/etc", h + "/etc-link");
  fs::create_symlink("/etc/passwd", h + "/passwd-link");
  fs::create_symlink("../../../../../../../../etc/shadow", h + "/rel-out");
  fs::create_symlink(h + "/nowhere", h + "/dangling");
  fs::create_symlink("/proc/self", h + "/proc-link");
  fs::create_symlink("loop2", h + "/loop1");
  fs::create_symlink("loop1", h + "/loop2");
  fs::create_symlink(h, h + "/deep/self");  // a cycle back up

  auto t0 = std::chrono::steady_clock::now();
  auto list = get("/files/list?path=hostile");
  ASSERT_EQ(list.status, 200) << list.body;
  auto entries = parse(list.body)->getArray("entries");
  std::set<std::string> names;
  for (std::size_t i = 0; i < entries->size(); ++i)
    names.insert(entries->getObject(i)->getValue<std::string>("name"));
  EXPECT_TRUE(names.count("new\nline.txt"));
  EXPECT_TRUE(names.count("bad\xEF\xBF\xBD\xEF\xBF\xBDutf8.txt"));  // U+FFFD per bad byte
  EXPECT_TRUE(names.count("quote\"back\\slash.txt"));
  EXPECT_TRUE(names.count("fifo"));
  EXPECT_TRUE(names.count("locked.txt"));
  for (const char* out : {"etc-link", "passwd-link", "rel-out", "proc-link", "dangling", "loop1"})
    EXPECT_FALSE(names.count(out)) << out;
  EXPECT_THAT(list.body, Not(HasSubstr("passwd\",")));

  auto search = post("/files/search", R"({"path":"hostile","pattern":"*"})");
  ASSERT_EQ(search.status, 200) << search.body;
  auto so = parse(search.body);
  EXPECT_FALSE(so->getValue<bool>("timed_out"));
  auto results = so->getArray("results");
  std::set<std::string> paths;
  for (std::size_t i = 0; i < results->size(); ++i)
    paths.insert(results->getObject(i)->getValue<std::string>("path"));
  EXPECT_TRUE(paths.count(h + "/deep/a/b/c/d/e/f.txt"));
  EXPECT_TRUE(paths.count(h + "/deep/self"));  // reported, never entered
  for (const auto& p : paths) {
    EXPECT_TRUE(p.starts_with(h + "/")) << p;
    EXPECT_THAT(p, Not(HasSubstr("etc"))) << p;
  }
  auto passwd = parse(post("/files/search", R"({"pattern":"passwd*"})").body);
  EXPECT_EQ(passwd->getArray("results")->size(), 0u);

  for (std::string format : {"tar.gz", "zip"}) {
    auto r = post("/files/archive", R"({"paths":["hostile"],"format":")" + format + "\"}");
    ASSERT_EQ(r.status, 200) << r.body;
    auto members = listArchive(unb64(parse(r.body)->getValue<std::string>("content_base64")));
    EXPECT_EQ(members["hostile/ok.txt"].second, "fine");
    EXPECT_EQ(members["hostile/new\nline.txt"].second, "nl");
    EXPECT_EQ(members["hostile/deep/a/b/c/d/e/f.txt"].second, "deep");
    EXPECT_EQ(members["hostile/locked.txt"].second, "secret");  // root reads 000 files
    EXPECT_FALSE(members.count("hostile/fifo"));
    for (const char* out : {"etc-link", "passwd-link", "rel-out", "proc-link", "loop1"})
      EXPECT_FALSE(members.count(std::string("hostile/") + out)) << out;
    for (const auto& [name, m] : members) {
      EXPECT_TRUE(name.starts_with("hostile")) << name;
      EXPECT_THAT(m.second, Not(HasSubstr("root:x:0:0"))) << name;
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  EXPECT_TRUE(server_->running());
}

// -------------------------------------------------------- interrupted upload --

TEST_F(FilesTest, AnInterruptedUploadLeavesNoTargetAndNoTemporary) {
  writeFile(dir() + "/keep.bin", "old");
  for (const std::string target : {"keep.bin", "fresh.bin"}) {
    std::string part = "{\"path\":\"" + target + "\",\"content_base64\":\"" +
                       b64(randomBytes(300000, 9)).substr(0, 200000);
    std::string raw =
        "POST /files/upload-stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        "application/json\r\nContent-Length: 900000\r\n\r\n" +
        part;
    rawHttp(port(), raw, std::chrono::milliseconds(500));  // then the client goes away
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(readFile(dir() + "/keep.bin"), "old");
  EXPECT_FALSE(fs::exists(dir() + "/fresh.bin"));
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".abx-tmp-")));
  EXPECT_EQ(get("/files/stat?path=keep.bin").status, 200);  // still serving
}

// ------------------------------------------------------------ policy rules --

TEST(FilesPolicy, SizeLimitsFromThePolicy) {
  ServerProcess server(
      withPolicy("endpoints:\n"
                 "  upload: {limits: {max_bytes: 10}}\n"
                 "  files_upload_stream: {limits: {max_bytes: 100000}}\n"
                 "  download: {limits: {max_bytes: 4}}\n"
                 "  files_archive: {limits: {max_bytes: 200, max_entries: 3}}\n"
                 "  files_list: {limits: {max_entries: 2}}\n"));
  const int port = server.port();
  auto small = http(port, "POST", "/upload", uploadBody("small.txt", "0123456789"));
  EXPECT_EQ(small.status, 200) << small.body;
  auto over = http(port, "POST", "/upload", uploadBody("over.txt", "0123456789A"));
  EXPECT_EQ(over.status, 413);
  EXPECT_EQ(
      over.body,
      R"({"error":"File too large: the limit is 10 bytes","type":"ValueError","code":"file_too_large"})");
  EXPECT_FALSE(fs::exists(server.dir() + "/over.txt"));
  // A body far over the limit: the answer still arrives whole.
  auto big =
      http(port, "POST", "/files/upload-stream", uploadBody("big.bin", randomBytes(3u << 20, 4)));
  EXPECT_EQ(big.status, 413);
  EXPECT_THAT(big.body, HasSubstr("file_too_large"));
  EXPECT_FALSE(fs::exists(server.dir() + "/big.bin"));

  auto dl = http(port, "GET", "/download?path=small.txt");
  EXPECT_EQ(dl.status, 413);
  EXPECT_THAT(dl.body, HasSubstr(R"("code":"file_too_large")"));
  writeFile(server.dir() + "/four", "1234");
  EXPECT_EQ(http(port, "GET", "/download?path=four").status, 200);
  EXPECT_EQ(http(port, "GET", "/files/download-stream?path=small.txt").status, 200);

  writeFile(server.dir() + "/arch/a", randomBytes(5000, 6));
  auto large = http(port, "POST", "/files/archive", R"({"paths":["arch"]})");
  EXPECT_EQ(large.status, 413);
  EXPECT_THAT(large.body, HasSubstr("file_too_large"));
  writeFile(server.dir() + "/many/1", "");
  writeFile(server.dir() + "/many/2", "");
  writeFile(server.dir() + "/many/3", "");
  auto many = http(port, "POST", "/files/archive", R"({"paths":["many"]})");
  EXPECT_EQ(many.status, 413);
  EXPECT_THAT(many.body, HasSubstr("too_many_files"));
  auto list = parse(http(port, "GET", "/files/list?path=many").body);
  EXPECT_EQ(list->getArray("entries")->size(), 2u);
  EXPECT_TRUE(list->getValue<bool>("truncated"));
}

TEST(FilesPolicy, OverwriteFalseAndExtensionRules) {
  ServerProcess server(
      withPolicy("defaults:\n  params: {overwrite: false}\n"
                 "endpoints:\n"
                 "  files_upload_stream: {params: {deny_extensions: [.sh, SO]}}\n"
                 "  upload: {params: {allow_extensions: [txt, .tar.gz]}}\n"
                 "  files_move: {params: {deny_extensions: [.exe]}}\n"));
  const int port = server.port();
  writeFile(server.dir() + "/exists.txt", "old");
  for (const char* route : {"/upload", "/files/upload-stream"}) {
    auto r = http(port, "POST", route, uploadBody("exists.txt", "new"));
    EXPECT_EQ(r.status, 409) << route;
    EXPECT_EQ(r.body,
              "{\"error\":\"File exists: exists.txt\",\"type\":\"FileExistsError\","
              "\"code\":\"file_exists\"}");
  }
  EXPECT_EQ(readFile(server.dir() + "/exists.txt"), "old");
  EXPECT_EQ(http(port, "POST", "/upload", uploadBody("fresh.txt", "x")).status, 200);
  EXPECT_EQ(http(port, "POST", "/upload", uploadBody("a.TAR.GZ", "x")).status, 200);
  auto not_allowed = http(port, "POST", "/upload", uploadBody("run.sh", "x"));
  EXPECT_EQ(not_allowed.status, 403);
  EXPECT_EQ(
      not_allowed.body,
      R"({"error":"File extension not allowed: run.sh","type":"PermissionError","code":"extension_not_allowed"})");
  EXPECT_EQ(http(port, "POST", "/files/upload-stream", uploadBody("lib.so", "x")).status, 403);
  EXPECT_EQ(http(port, "POST", "/files/upload-stream", uploadBody("x.SH", "x")).status, 403);
  EXPECT_EQ(http(port, "POST", "/files/upload-stream", uploadBody("ok.bin", "x")).status, 200);
  EXPECT_FALSE(fs::exists(server.dir() + "/run.sh"));

  auto move_ext =
      http(port, "POST", "/files/move", R"({"source":"fresh.txt","destination":"a.exe"})");
  EXPECT_EQ(move_ext.status, 403);
  EXPECT_THAT(move_ext.body,
              HasSubstr(R"("error":"destination: File extension not allowed: a.exe")"));
  auto move_over =
      http(port, "POST", "/files/move", R"({"source":"fresh.txt","destination":"exists.txt"})");
  EXPECT_EQ(move_over.status, 409);
  EXPECT_THAT(move_over.body, HasSubstr("file_exists"));
  EXPECT_EQ(readFile(server.dir() + "/exists.txt"), "old");
  EXPECT_TRUE(fs::exists(server.dir() + "/fresh.txt"));
}

TEST(FilesPolicy, DenyGlobsHideEntriesAndProtectSubtrees) {
  ServerProcess server(withPolicy("defaults:\n  paths: {deny: [\"**/.git/**\"]}\n"));
  const int port = server.port();
  writeFile(server.dir() + "/repo/.git/config", "secret");
  writeFile(server.dir() + "/repo/main.c", "int main;");
  auto list = http(port, "GET", "/files/list?path=repo");
  EXPECT_THAT(list.body, Not(HasSubstr(".git")));
  auto search = http(port, "POST", "/files/search", R"({"path":"repo","pattern":"*"})");
  EXPECT_THAT(search.body, Not(HasSubstr(".git")));
  auto archive = parse(http(port, "POST", "/files/archive", R"({"paths":["repo"]})").body);
  auto members = listArchive(unb64(archive->getValue<std::string>("content_base64")));
  EXPECT_EQ(members.size(), 2u);
  EXPECT_FALSE(members.count("repo/.git"));
  auto del = http(port, "DELETE", "/files?path=repo");
  EXPECT_EQ(del.status, 403);
  EXPECT_THAT(del.body, HasSubstr("path_denied"));
  EXPECT_TRUE(fs::exists(server.dir() + "/repo/.git/config"));
  auto mv = http(port, "POST", "/files/move", R"({"source":"repo","destination":"moved"})");
  EXPECT_EQ(mv.status, 403);
  EXPECT_THAT(mv.body, HasSubstr("source: Path denied"));
}

TEST(FilesPolicy, SearchTimeoutFromThePolicyIsReported) {
  ServerProcess server(
      withPolicy("endpoints:\n  files_search: {limits: {timeout_seconds: 0.000001}}\n"));
  for (int i = 0; i < 50; ++i) writeFile(server.dir() + "/t/d" + std::to_string(i) + "/f", "");
  auto r = parse(http(server.port(), "POST", "/files/search", R"({"pattern":"*"})").body);
  EXPECT_TRUE(r->getValue<bool>("timed_out"));
}

TEST(FilesPolicy, MaxUploadSizeFromTheEnvironment) {
  ServerOptions o;
  o.manifest = kManifest;
  o.env = {{"ABX_MAX_UPLOAD_SIZE", "1000"}};
  ServerProcess server(o);
  EXPECT_EQ(
      http(server.port(), "POST", "/files/upload-stream", uploadBody("a", std::string(1000, 'a')))
          .status,
      200);
  auto over =
      http(server.port(), "POST", "/files/upload-stream", uploadBody("b", std::string(1001, 'b')));
  EXPECT_EQ(over.status, 413);
  EXPECT_THAT(over.body, HasSubstr("file_too_large"));
  // The route's body cap follows the limit: 4/3 of it plus 1 MiB. The
  // kernel answers from Content-Length and drains the body it refused.
  auto huge =
      rawHttp(server.port(),
              "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              "Content-Length: 3145728\r\nConnection: close\r\n\r\n" +
                  std::string(3145728, ' '));
  EXPECT_THAT(huge, HasSubstr("HTTP/1.1 413"));
  EXPECT_THAT(huge, HasSubstr("request_too_large"));
}

TEST(FilesPolicy, ScopesFollowTheDesignTable) {
  // sha256("reader-token-123")
  ServerProcess server(withPolicy(
      "auth:\n  tokens:\n    - {id: reader, token_env: READER_TOKEN, scopes: [\"files:read\"]}\n"
      "    - {id: writer, token_env: WRITER_TOKEN, scopes: [\"files:write\"]}\n",
      {{"READER_TOKEN", "reader-token-123"}, {"WRITER_TOKEN", "writer-token-123"}}));
  auto as = [](const char* t) {
    return std::vector<std::pair<std::string, std::string>>{{"X-Access-Token", t}};
  };
  const int port = server.port();
  EXPECT_EQ(http(port, "GET", "/files/list", "", as("reader-token-123")).status, 200);
  auto up = http(port, "POST", "/upload", uploadBody("x", "x"), as("reader-token-123"));
  EXPECT_EQ(up.status, 403);
  EXPECT_THAT(up.body, HasSubstr("missing_scope"));
  EXPECT_EQ(http(port, "POST", "/upload", uploadBody("x", "x"), as("writer-token-123")).status,
            200);
  auto mv = http(port, "POST", "/files/move", R"({"source":"x","destination":"y"})",
                 as("writer-token-123"));
  EXPECT_EQ(mv.status, 403);
  EXPECT_THAT(mv.body, HasSubstr("files:delete"));
}

}  // namespace
}  // namespace abx::testing
