// LogSink: every line passes the server's one redactor (sdk::SecretRedactor):
// registered secrets in their spellings and the common token shapes.
#include "support/log_sink.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "loader/kernel_services.h"

namespace abx::kernel {
namespace {

std::string logged(const sdk::Redactor& redactor, std::string_view message) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&text, &size);
  {
    LogSink sink(redactor, out);
    sink.write(sdk::LogLevel::info, "test", message);
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

}  // namespace
}  // namespace abx::kernel
