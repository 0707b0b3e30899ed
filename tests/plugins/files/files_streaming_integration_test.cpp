// Integration: the streaming routes over real HTTP at the sizes where the
// pieces change (48 KiB of file per encoded piece, 64 KiB of body per read),
// base64 errors far into a body, and a download whose file shrinks while it
// is sent (the client must see a short body, never a wrong complete one).
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "plugins/files/files_test_support.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class FilesStreamingTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.emplace(ServerOptions{kManifest}); }
  int port() { return server_->port(); }
  std::string dir() { return server_->dir(); }
  std::optional<ServerProcess> server_;

  void expectNoTemporaries() {
    for (const auto& e : fs::directory_iterator(dir()))
      EXPECT_THAT(e.path().filename().string(), Not(HasSubstr(".abx-tmp-")));
  }
};

TEST_F(FilesStreamingTest, SizesAroundEveryPieceBoundaryRoundTrip) {
  const std::size_t piece = 48u << 10;
  const std::size_t sizes[] = {0,
                               1,
                               2,
                               3,
                               piece - 1,
                               piece,
                               piece + 1,
                               2 * piece + 2,
                               (64u << 10) + 5,
                               3 * piece - 1,
                               (1u << 20) + 3};
  for (std::size_t n : sizes) {
    SCOPED_TRACE(n);
    const std::string data = randomBytes(n, static_cast<unsigned>(n));
    auto up = http(port(), "POST", "/files/upload-stream", uploadBody("s.bin", data));
    ASSERT_EQ(up.status, 200) << up.body;
    EXPECT_EQ(parse(up.body)->getValue<std::uint64_t>("bytes"), n);
    ASSERT_EQ(readFile(dir() + "/s.bin"), data);
    auto down = http(port(), "GET", "/files/download-stream?path=s.bin");
    ASSERT_EQ(down.status, 200);
    EXPECT_EQ(down.headers["content-length"], std::to_string(down.body.size()));
    const std::string prefix = "{\"path\":\"" + dir() + "/s.bin\",\"content_base64\":\"";
    const std::string suffix = "\",\"bytes\":" + std::to_string(n) + "}";
    ASSERT_EQ(down.body, prefix + b64(data) + suffix);
  }
}

TEST_F(FilesStreamingTest, Base64ErrorsFarIntoTheBodyAreRefusedWithTheirMessage) {
  const std::string text = b64(randomBytes(300000, 4));  // 400 000 characters
  const std::pair<std::string, std::string> cases[] = {
      {text.substr(0, 200001) + "!" + text.substr(200002), "unexpected character"},
      {text.substr(0, 150000) + "=" + text.substr(150001), "misplaced padding"},
      {text.substr(0, 150002) + "==" + text.substr(150004), "data after padding"},
      {text.substr(0, 399999), "incorrect padding"},
      {text + "=", "misplaced padding"},
  };
  for (const auto& [content, why] : cases) {
    SCOPED_TRACE(why);
    auto r = http(port(), "POST", "/files/upload-stream",
                  R"({"path":"bad.bin","content_base64":")" + content + "\"}");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(r.body, R"({"error":"Invalid base64 content: )" + why + R"(","type":"ValueError"})");
    EXPECT_FALSE(fs::exists(dir() + "/bad.bin"));
  }
  expectNoTemporaries();
}

TEST_F(FilesStreamingTest, ADownloadWhoseFileShrinksIsCutShort) {
  // Larger than the loopback socket buffers, so the server is still sending
  // when the file shrinks.
  const std::size_t size = 24u << 20;
  writeFile(dir() + "/big.bin", randomBytes(size, 6));
  Poco::Net::StreamSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port())));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  const std::string request =
      "GET /files/download-stream?path=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  std::string got;
  char buf[65536];
  while (got.find("\r\n\r\n") == std::string::npos || got.size() < (256u << 10)) {
    int n = socket.receiveBytes(buf, sizeof buf);
    ASSERT_GT(n, 0) << "closed before the body began";
    got.append(buf, static_cast<std::size_t>(n));
  }
  ASSERT_EQ(::truncate((dir() + "/big.bin").c_str(), 1 << 20), 0);
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    int n = socket.receiveBytes(buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t head_end = got.find("\r\n\r\n") + 4;
  ASSERT_THAT(got.substr(0, head_end), HasSubstr("HTTP/1.1 200"));
  std::string prefix = "{\"path\":\"" + dir() + "/big.bin\",\"content_base64\":\"";
  std::size_t whole = prefix.size() + (size + 2) / 3 * 4 + std::string("\",\"bytes\":").size() +
                      std::to_string(size).size() + 1;
  ASSERT_THAT(got.substr(0, head_end), HasSubstr("Content-Length: " + std::to_string(whole)));
  std::size_t body = got.size() - head_end;
  EXPECT_LT(body, whole) << "a complete body for a file that shrank";
  EXPECT_NE(got.back(), '}');
  EXPECT_TRUE(server_->running());
  EXPECT_EQ(http(port(), "GET", "/files/stat?path=big.bin").status, 200);  // still serving
}

TEST_F(FilesStreamingTest, LargeDownloadsKeepTheConnectionUsable) {
  // Large pieces bypass the response stream: the bytes on the wire must
  // still be exactly Content-Length, or the next answer would be garbled.
  const std::string data = randomBytes((300u << 10) + 1, 12);
  writeFile(dir() + "/k.bin", data);
  const std::string get = "GET /files/download-stream?path=k.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  std::string raw = rawHttp(port(), get + "\r\n" + get + "Connection: close\r\n\r\n");
  const std::string body = "{\"path\":\"" + dir() + "/k.bin\",\"content_base64\":\"" + b64(data) +
                           "\",\"bytes\":" + std::to_string(data.size()) + "}";
  for (int answer = 0; answer < 2; ++answer) {
    SCOPED_TRACE(answer);
    std::size_t head_end = raw.find("\r\n\r\n");
    ASSERT_NE(head_end, std::string::npos);
    ASSERT_TRUE(raw.starts_with("HTTP/1.1 200")) << raw.substr(0, 200);
    ASSERT_THAT(raw.substr(0, head_end),
                HasSubstr("Content-Length: " + std::to_string(body.size())));
    ASSERT_EQ(raw.substr(head_end + 4, body.size()), body);
    raw.erase(0, head_end + 4 + body.size());
  }
  EXPECT_EQ(raw, "");
}

}  // namespace
}  // namespace abx::testing
