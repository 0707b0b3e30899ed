// The MCP name rule every adapter applies before joining names into argv or
// config (mcp_names.h): [A-Za-z0-9_-]{1,64} for server and tool names, the
// first offender named in the error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "mcp_names.h"

namespace abx::plugins::adapters {
namespace {

using sdk::agents::McpServerSpec;
using ::testing::HasSubstr;

TEST(McpNames, TheAlphabetIsLettersDigitsUnderscoreAndDash) {
  for (const std::string& name : std::vector<std::string>{"a", "Z", "0", "_", "-", "read_file",
                                                          "list-dir", std::string(64, 'x')})
    EXPECT_TRUE(isSafeMcpName(name)) << name;
  for (const std::string& name :
       std::vector<std::string>{"", "t,Bash", "t Bash", "a.b", "a/b", "a:b", "a(b)", "a*", "é",
                                std::string(65, 'x'), std::string("a\0b", 3), "a\nb"})
    EXPECT_FALSE(isSafeMcpName(name)) << name;
}

TEST(McpNames, CheckNamesTheFirstBadServerOrTool) {
  McpServerSpec good;
  good.name = "docs";
  good.allowed_tools = {"search", "fetch-page"};
  EXPECT_TRUE(checkMcpNames({good}, "codex").isOk());
  EXPECT_TRUE(checkMcpNames({}, "codex").isOk());

  McpServerSpec bad_tool = good;
  bad_tool.allowed_tools = {"search", "t,Bash"};
  auto s = checkMcpNames({good, bad_tool}, "claude-code");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.type(), "ValueError");
  EXPECT_THAT(s.message(), HasSubstr("'t,Bash'"));
  EXPECT_THAT(s.message(), HasSubstr("claude-code"));

  McpServerSpec bad_server = good;
  bad_server.name = "m,Bash";
  s = checkMcpNames({bad_server}, "qwen-code");
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("'m,Bash'"));
}

}  // namespace
}  // namespace abx::plugins::adapters
