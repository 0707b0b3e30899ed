// One test per §9.11 input rule (the predicates the definition parser uses).
#include <gtest/gtest.h>

#include "definition/definition_rules.h"

namespace abx::plugins::agents {
namespace {

TEST(DefinitionRules, AgentNames) {
  EXPECT_TRUE(isValidAgentName("reviewer"));
  EXPECT_TRUE(isValidAgentName("a.b_c-D9"));
  EXPECT_TRUE(isValidAgentName(std::string(64, 'a')));
  EXPECT_FALSE(isValidAgentName(std::string(65, 'a')));
  EXPECT_FALSE(isValidAgentName(""));
  EXPECT_FALSE(isValidAgentName("has space"));
  EXPECT_FALSE(isValidAgentName("slash/name"));
  EXPECT_FALSE(isValidAgentName("."));
  EXPECT_FALSE(isValidAgentName(".."));
  EXPECT_FALSE(isValidAgentName("ünï"));
}

TEST(DefinitionRules, RuntimeNames) {
  EXPECT_TRUE(isValidRuntimeName("claude-code"));
  EXPECT_TRUE(isValidRuntimeName("com.acme.foo"));
  EXPECT_FALSE(isValidRuntimeName(""));
  EXPECT_FALSE(isValidRuntimeName("a b"));
}

TEST(DefinitionRules, McpServerNames) {
  EXPECT_TRUE(isValidMcpServerName("docs_2-x"));
  EXPECT_TRUE(isValidMcpServerName(std::string(40, 'm')));
  EXPECT_FALSE(isValidMcpServerName(std::string(41, 'm')));
  EXPECT_FALSE(isValidMcpServerName("has.dot"));
  EXPECT_FALSE(isValidMcpServerName(""));
}

TEST(DefinitionRules, McpToolNames) {
  EXPECT_TRUE(isValidMcpToolName("read_file"));
  EXPECT_TRUE(isValidMcpToolName("list-dir-2"));
  EXPECT_TRUE(isValidMcpToolName(std::string(64, 't')));
  for (std::string name :
       {std::string(65, 't'), std::string(), std::string("t,Bash"), std::string("t Bash"),
        std::string("a.b"), std::string("Bash(*)"), std::string("t\nx")})
    EXPECT_FALSE(isValidMcpToolName(name)) << name;
}

TEST(DefinitionRules, EnvNameSyntax) {
  EXPECT_EQ(envNameProblem("LOG_LEVEL", EnvKind::env), std::nullopt);
  EXPECT_EQ(envNameProblem("_x9", EnvKind::secret), std::nullopt);
  EXPECT_NE(envNameProblem("9X", EnvKind::env), std::nullopt);
  EXPECT_NE(envNameProblem("A-B", EnvKind::env), std::nullopt);
  EXPECT_NE(envNameProblem("", EnvKind::env), std::nullopt);
}

TEST(DefinitionRules, EnvDenyList) {
  for (const char* name :
       {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_BIND_NOW", "DYLD_INSERT_LIBRARIES",
        "ABX_SERVER_TOKEN", "ABX_AGENTS_CONFIG", "BASH_ENV", "ENV", "IFS", "GCONV_PATH"}) {
    EXPECT_NE(envNameProblem(name, EnvKind::env), std::nullopt) << name;
    EXPECT_NE(envNameProblem(name, EnvKind::secret), std::nullopt) << name;
  }
  EXPECT_NE(envNameProblem("ABX_SERVER_TOKEN", EnvKind::env)->find("server"), std::string::npos);
}

TEST(DefinitionRules, PathOnlyThroughEnv) {
  EXPECT_EQ(envNameProblem("PATH", EnvKind::env), std::nullopt);
  ASSERT_NE(envNameProblem("PATH", EnvKind::secret), std::nullopt);
  EXPECT_NE(envNameProblem("PATH", EnvKind::secret)->find("only through env"), std::string::npos);
}

TEST(DefinitionRules, GitUrlSchemes) {
  EXPECT_EQ(gitUrlProblem("https://github.com/o/r.git"), std::nullopt);
  EXPECT_EQ(gitUrlProblem("ssh://git@github.com/o/r.git"), std::nullopt);
  EXPECT_EQ(gitUrlProblem("git://example.com/r.git"), std::nullopt);
  EXPECT_EQ(gitUrlProblem("git@github.com:o/r.git"), std::nullopt);  // scp-like ssh
  EXPECT_NE(gitUrlProblem("http://github.com/o/r.git"), std::nullopt);
  EXPECT_NE(gitUrlProblem("file:///etc"), std::nullopt);
  EXPECT_NE(gitUrlProblem("ext::sh%20-c%20id"), std::nullopt);
  EXPECT_NE(gitUrlProblem("/local/path"), std::nullopt);
  EXPECT_NE(gitUrlProblem("https:///nohost"), std::nullopt);
  EXPECT_NE(gitUrlProblem("host:path"), std::nullopt);  // scp-like needs user@
  EXPECT_NE(gitUrlProblem(""), std::nullopt);
}

TEST(DefinitionRules, GitUrlMustNotLookLikeAnOption) {
  auto problem = gitUrlProblem("--upload-pack=evil");
  ASSERT_NE(problem, std::nullopt);
  EXPECT_NE(problem->find("'-'"), std::string::npos);
  EXPECT_NE(gitUrlProblem("-https://x"), std::nullopt);
}

TEST(DefinitionRules, GitUrlRejectsWhitespace) {
  EXPECT_NE(gitUrlProblem("https://github.com/o/r.git --depth"), std::nullopt);
  EXPECT_NE(gitUrlProblem("https://github.com/o\n/r"), std::nullopt);
}

TEST(DefinitionRules, GitRef) {
  EXPECT_EQ(gitRefProblem("main"), std::nullopt);
  EXPECT_EQ(gitRefProblem("refs/tags/v1.0"), std::nullopt);
  EXPECT_NE(gitRefProblem("-b"), std::nullopt);
  EXPECT_NE(gitRefProblem("a b"), std::nullopt);
}

TEST(DefinitionRules, WorkspacePath) {
  EXPECT_EQ(workspacePathProblem("/workspace"), std::nullopt);
  EXPECT_EQ(workspacePathProblem("/workspace/repo..x/..y"), std::nullopt);
  EXPECT_NE(workspacePathProblem("workspace"), std::nullopt);
  EXPECT_NE(workspacePathProblem(""), std::nullopt);
  EXPECT_NE(workspacePathProblem("/workspace/../etc"), std::nullopt);
  EXPECT_NE(workspacePathProblem("/.."), std::nullopt);
  EXPECT_NE(workspacePathProblem("/a/.."), std::nullopt);
  EXPECT_NE(workspacePathProblem("/a\nb"), std::nullopt);
}

TEST(DefinitionRules, HttpUrls) {
  EXPECT_EQ(httpUrlProblem("https://llm.example.com/v1"), std::nullopt);
  EXPECT_EQ(httpUrlProblem("http://127.0.0.1:8080"), std::nullopt);
  EXPECT_NE(httpUrlProblem("ftp://x"), std::nullopt);
  EXPECT_NE(httpUrlProblem("https://"), std::nullopt);
  EXPECT_NE(httpUrlProblem("https://a b"), std::nullopt);
}

TEST(DefinitionRules, HeaderNamesAndValues) {
  EXPECT_TRUE(isValidHeaderName("Authorization"));
  EXPECT_TRUE(isValidHeaderName("X-Api-Key"));
  EXPECT_FALSE(isValidHeaderName("Bad Header"));
  EXPECT_FALSE(isValidHeaderName("a:b"));
  EXPECT_FALSE(isValidHeaderName(""));
  EXPECT_EQ(headerValueProblem("Bearer x"), std::nullopt);
  EXPECT_NE(headerValueProblem("x\r\nEvil: 1"), std::nullopt);
  EXPECT_NE(headerValueProblem(std::string_view("a\0b", 3)), std::nullopt);
}

}  // namespace
}  // namespace abx::plugins::agents
