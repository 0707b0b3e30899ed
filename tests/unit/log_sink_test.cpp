// LogSink: every line passes the server's one redactor (sdk::SecretRedactor):
// registered secrets in their spellings and the common token shapes.
#include "support/log_sink.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>

#include "abx/sdk/json.h"
#include "loader/kernel_services.h"
#include "support/request_id.h"

namespace abx::kernel {
namespace {

std::string logged(const sdk::Redactor& redactor, std::string_view message,
                   LogFormat format = LogFormat::text,
                   sdk::LogLevel min_level = sdk::LogLevel::info,
                   sdk::LogLevel level = sdk::LogLevel::info) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&text, &size);
  {
    LogSink sink(redactor, out);
    sink.configure(min_level, format);
    sink.write(level, "test", message);
  }
  std::fclose(out);
  std::string line(text, size);
  std::free(text);
  return line;
}

TEST(LogSink, RedactsRegisteredSecretsAndTokenShapes) {
  KernelServices services(sdk::HostInfo{});
  services.redactor.addSecret("hunter22");
  services.redactor.addSecret("abc");  // too short to redact anything
  auto line = logged(services.redactor,
                     "pw=hunter22 url=pw%3Dhunter22 key sk-ABCDEFGHIJKLMNOPQRST abc "
                     "Authorization: Bearer abcdefgh12345");
  EXPECT_EQ(line.find("hunter22"), std::string::npos) << line;
  EXPECT_EQ(line.find("sk-ABCDEFGHIJKLMNOPQRST"), std::string::npos) << line;
  EXPECT_EQ(line.find("abcdefgh12345"), std::string::npos) << line;
  EXPECT_NE(line.find("Bearer [REDACTED]"), std::string::npos) << line;
  EXPECT_NE(line.find(" abc "), std::string::npos) << line;
  // A 4-byte secret is the shortest a log line hides.
  services.redactor.addSecret("q7z!");
  EXPECT_EQ(logged(services.redactor, "x q7z! y").find("q7z!"), std::string::npos);
}

TEST(LogSink, TextLinesStartWithTheirUtcTime) {
  KernelServices services(sdk::HostInfo{});
  const auto line = logged(services.redactor, "draining");
  EXPECT_TRUE(std::regex_match(
      line,
      std::regex(
          R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z agent-sandbox-server \[info\] test: draining\n)")))
      << line;
}

TEST(LogSink, JsonLinesAreOneObjectEach) {
  KernelServices services(sdk::HostInfo{});
  services.redactor.addSecret("hunter22");
  const auto line = logged(services.redactor, "say \"hi\"\npw=hunter22", LogFormat::json,
                           sdk::LogLevel::info, sdk::LogLevel::warn);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line: " << line;
  auto json = sdk::Json::parse(line.substr(0, line.size() - 1));
  ASSERT_TRUE(json) << line;
  EXPECT_EQ(json->string("level").value(), "warn");
  EXPECT_EQ(json->string("source").value(), "test");
  EXPECT_EQ(json->string("message").value(), "say \"hi\"\npw=[REDACTED]");
  EXPECT_TRUE(std::regex_match(json->string("time").value(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")));
}

TEST(LogSink, LinesBelowTheLevelAreDropped) {
  KernelServices services(sdk::HostInfo{});
  EXPECT_EQ(logged(services.redactor, "x", LogFormat::text, sdk::LogLevel::warn), "");
  EXPECT_NE(
      logged(services.redactor, "x", LogFormat::text, sdk::LogLevel::debug, sdk::LogLevel::debug),
      "");
  EXPECT_EQ(parseLogLevel("warn"), sdk::LogLevel::warn);
  EXPECT_EQ(parseLogLevel("WARN"), std::nullopt);
  EXPECT_EQ(parseLogFormat("json"), LogFormat::json);
  EXPECT_EQ(parseLogFormat("yaml"), std::nullopt);
}

TEST(LogSink, LinesWrittenWhileARequestIsHandledCarryItsId) {
  KernelServices services(sdk::HostInfo{});
  EXPECT_EQ(logged(services.redactor, "before").find("request_id"), std::string::npos);
  {
    const std::string id = requestIdFor("trace-7");
    const RequestIdScope scope(id);
    EXPECT_EQ(currentRequestId(), "trace-7");
    const auto text = logged(services.redactor, "inside");
    EXPECT_TRUE(text.ends_with("test: inside request_id=trace-7\n")) << text;
    const auto json = logged(services.redactor, "inside", LogFormat::json);
    EXPECT_NE(json.find(R"("message":"inside","request_id":"trace-7"})"), std::string::npos)
        << json;
  }
  EXPECT_EQ(currentRequestId(), "");
  EXPECT_EQ(requestIdFor(std::string(129, 'a')).size(), 32u);
  EXPECT_NE(requestIdFor(""), requestIdFor(""));
}

}  // namespace
}  // namespace abx::kernel
