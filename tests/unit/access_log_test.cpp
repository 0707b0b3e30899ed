// AccessLog::format: one request is always one line with a fixed number of
// fields, whatever bytes a caller put into its path or request id.
#include "pipeline/access_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace abx::kernel {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

AccessEntry entry(std::string_view path) {
  AccessEntry e;
  e.remote = "127.0.0.1";
  e.identity = "legacy";
  e.method = "GET";
  e.path = path;
  e.status = 404;
  e.duration_ms = 1.5;
  e.request_id = "id-1";
  return e;
}

TEST(AccessLogFormat, TextEscapesWhatCouldSplitAFieldOrALine) {
  auto line = AccessLog::format(entry("/a b\"c\n\x7f\xc3\xa9\\"), LogFormat::text);
  EXPECT_THAT(line, HasSubstr(R"("GET /a\x20b\x22c\x0a\x7f\xc3\xa9\x5c" 404 1.500 id-1 -)"));
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // the only newline ends the line
}

TEST(AccessLogFormat, TextFieldsAndDashForEmpty) {
  auto e = entry("/health");
  e.remote = "";
  e.identity = "";
  EXPECT_THAT(AccessLog::format(e, LogFormat::text),
              MatchesRegex(R"(- - \[[0-9T:.-]+Z\] "GET /health" 404 1\.500 id-1 -
)"));
}

TEST(AccessLogFormat, JsonEscapesLikeAnyJsonString) {
  auto line = AccessLog::format(entry("/a\"b\n"), LogFormat::json);
  EXPECT_THAT(line, HasSubstr(R"("path":"/a\"b\n")"));
  EXPECT_THAT(line,
              HasSubstr(R"("status":404,"duration_ms":1.500,"request_id":"id-1","endpoint":"")"));
  EXPECT_EQ(line.find('\n'), line.size() - 1);
}

}  // namespace
}  // namespace abx::kernel
