// Agent definitions: the full schema from YAML and from an HTTP JSON body,
// defaults, secret classification of MCP headers, and one case per error
// (each names the dotted path of the field).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "definition/agent_definition.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::Permissions;

EnvLookup fakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

DefinitionResult fromYaml(const std::string& yaml, DefinitionOptions options = {}) {
  auto tree = configFromYaml(yaml);
  EXPECT_TRUE(tree) << tree.status().message();
  if (!tree) return {};
  return parseAgentDefinition(*tree, options);
}

/** The error at @p path, or "" when there is none. */
std::string errorAt(const DefinitionResult& r, const std::string& path) {
  for (const auto& e : r.errors)
    if (e.path == path) return e.message;
  return "";
}

constexpr const char* kFullYaml = R"(
name: reviewer
runtime: codex
model: gpt-5-codex
instructions: |
  You are a careful code reviewer.
provider:
  base_url: https://llm.example.com/v1
  api_key: ${OPENAI_API_KEY}
  wire_api: responses
workspace:
  path: /workspace/repo
  git: {url: https://github.com/o/r.git, ref: main, token: "${GITHUB_TOKEN}"}
  upload: ./
env: {LOG_LEVEL: debug, RETRIES: 3}
secrets: {NPM_TOKEN: "${NPM_TOKEN}"}
mcp_servers:
  docs:  {url: https://mcp.example.com/mcp, headers: {Authorization: "Bearer ${DOCS_TOKEN}", X-Trace: on1}}
  files: {command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "/workspace"]}
permissions: workspace_write
limits:
  turn_timeout_s: 900
  idle_timeout_s: 60.5
  max_turns: 40
  max_budget_usd: 5
  max_output_bytes: 8388608
  cpu_seconds: null
extra_args: ["--some-flag"]
)";

DefinitionOptions fileOptions() {
  DefinitionOptions options;
  options.expand_placeholders = true;
  options.env = fakeEnv({{"OPENAI_API_KEY", "sk-openai-0123456789abcdef"},
                         {"GITHUB_TOKEN", "ghp_tokentokentokentoken"},
                         {"NPM_TOKEN", "npm-secret-value"},
                         {"DOCS_TOKEN", "docs-token-123"}});
  return options;
}

TEST(AgentDefinition, ParsesEveryFieldFromYaml) {
  auto r = fromYaml(kFullYaml, fileOptions());
  ASSERT_TRUE(r.ok()) << r.errorText();
  const auto& s = r.spec;
  EXPECT_EQ(s.name, "reviewer");
  EXPECT_EQ(s.runtime, "codex");
  EXPECT_EQ(s.model, "gpt-5-codex");
  EXPECT_EQ(s.instructions, "You are a careful code reviewer.\n");
  EXPECT_EQ(s.provider.base_url, "https://llm.example.com/v1");
  EXPECT_EQ(s.provider.api_key, "sk-openai-0123456789abcdef");
  EXPECT_EQ(s.provider.wire_api, "responses");
  EXPECT_EQ(s.workspace.path, "/workspace/repo");
  ASSERT_TRUE(s.workspace.git);
  EXPECT_EQ(s.workspace.git->url, "https://github.com/o/r.git");
  EXPECT_EQ(s.workspace.git->ref, "main");
  EXPECT_EQ(s.workspace.git->token, "ghp_tokentokentokentoken");
  EXPECT_EQ(r.git_depth, 1);  // shallow unless the definition says otherwise
  ASSERT_EQ(s.env.size(), 2u);
  EXPECT_EQ(s.env[0], (std::pair<std::string, std::string>{"LOG_LEVEL", "debug"}));
  EXPECT_EQ(s.env[1], (std::pair<std::string, std::string>{"RETRIES", "3"}));
  ASSERT_EQ(s.secrets.size(), 1u);
  EXPECT_EQ(s.secrets[0].second, "npm-secret-value");
  ASSERT_EQ(s.mcp_servers.size(), 2u);
  const auto& docs = s.mcp_servers[0];
  EXPECT_EQ(docs.name, "docs");
  EXPECT_EQ(docs.url, "https://mcp.example.com/mcp");
  ASSERT_EQ(docs.headers.size(), 2u);
  EXPECT_EQ(docs.headers[0].name, "Authorization");
  EXPECT_EQ(docs.headers[0].value, "Bearer docs-token-123");
  EXPECT_TRUE(docs.headers[0].secret);
  EXPECT_EQ(docs.headers[1].value, "on1");
  EXPECT_FALSE(docs.headers[1].secret);
  const auto& files = s.mcp_servers[1];
  EXPECT_EQ(files.command, "npx");
  EXPECT_EQ(files.args.size(), 3u);
  EXPECT_TRUE(files.url.empty());
  EXPECT_EQ(s.permissions, Permissions::workspace_write);
  EXPECT_EQ(s.limits.turn_timeout_s, 900);
  EXPECT_EQ(s.limits.idle_timeout_s, 60.5);
  EXPECT_EQ(s.limits.max_turns, 40);
  EXPECT_EQ(s.limits.max_budget_usd, 5);
  EXPECT_EQ(s.limits.max_output_bytes, 8388608);
  EXPECT_EQ(s.limits.cpu_seconds, std::nullopt);
  EXPECT_EQ(s.extra_args, std::vector<std::string>{"--some-flag"});
  EXPECT_FALSE(s.command);
}

TEST(AgentDefinition, DefaultsForAMinimalDefinition) {
  auto r = fromYaml("name: a\nruntime: codex\n");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.workspace.path, "/workspace");
  EXPECT_FALSE(r.spec.workspace.git);
  EXPECT_EQ(r.spec.permissions, Permissions::full_access);
  EXPECT_EQ(r.spec.limits.turn_timeout_s, 1800);
  EXPECT_EQ(r.spec.limits.idle_timeout_s, 300);
  EXPECT_EQ(r.spec.limits.max_output_bytes, 8 * 1024 * 1024);
  EXPECT_EQ(r.spec.limits.max_turns, std::nullopt);
}

TEST(AgentDefinition, HttpBodyMatchesTheYamlSpelling) {
  auto r = parseAgentDefinitionBody(R"({
    "name": "reviewer", "runtime": "codex", "model": "gpt-5-codex",
    "provider": {"base_url": "https://llm.example.com/v1", "api_key": "sk-literal-key-0000000000"},
    "workspace": {"git": {"url": "git@github.com:o/r.git", "token": "tok-123456"}},
    "env": {"LOG_LEVEL": "debug"}, "secrets": {"NPM_TOKEN": "npm-secret-value"},
    "mcp_servers": {"docs": {"url": "https://mcp.example.com/mcp",
                             "headers": {"authorization": "Bearer abcdefgh", "X-Other": "plain",
                                         "X-Marked": {"value": "v-secret", "secret": true}}}},
    "limits": {"max_turns": 3, "turn_timeout_s": null}
  })");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.provider.api_key, "sk-literal-key-0000000000");
  EXPECT_EQ(r.spec.workspace.git->url, "git@github.com:o/r.git");
  EXPECT_EQ(r.spec.limits.max_turns, 3);
  EXPECT_EQ(r.spec.limits.turn_timeout_s, std::nullopt);
  const auto& headers = r.spec.mcp_servers.at(0).headers;
  ASSERT_EQ(headers.size(), 3u);
  EXPECT_TRUE(headers[0].secret) << "credential header names are secret in HTTP bodies";
  EXPECT_FALSE(headers[1].secret);
  EXPECT_TRUE(headers[2].secret);
  EXPECT_EQ(headers[2].value, "v-secret");
}

TEST(AgentDefinition, HttpBodiesAreNotExpanded) {
  auto r = parseAgentDefinitionBody(
      R"({"name": "a", "runtime": "codex", "instructions": "use ${HOME}",
          "mcp_servers": {"m": {"url": "https://m.example", "headers": {"X-T": "${TOKEN}"}}}})");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.instructions, "use ${HOME}");
  EXPECT_TRUE(r.spec.mcp_servers[0].headers[0].secret) << "a ${…} value is secret as written";
}

TEST(AgentDefinition, SecretFalseNeverDowngrades) {
  DefinitionOptions options = fileOptions();
  auto r = fromYaml(R"(
name: a
runtime: codex
mcp_servers:
  m:
    url: https://m.example
    headers:
      X-A: {value: "${DOCS_TOKEN}", secret: false}
      Api-Key: {value: literal-key, secret: false}
      X-B: {value: public, secret: false}
)",
                    options);
  ASSERT_TRUE(r.ok()) << r.errorText();
  const auto& h = r.spec.mcp_servers[0].headers;
  EXPECT_TRUE(h[0].secret);
  EXPECT_TRUE(h[1].secret);
  EXPECT_FALSE(h[2].secret);
}

TEST(AgentDefinition, UnsetVariableNamesTheFieldAndTheVariable) {
  DefinitionOptions options;
  options.expand_placeholders = true;
  options.env = fakeEnv({});
  auto r = fromYaml("name: a\nruntime: codex\nprovider: {api_key: '${MISSING_KEY}'}\n", options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(errorAt(r, "provider.api_key"), "environment variable MISSING_KEY is not set");
}

TEST(AgentDefinition, UnknownKeysNameTheDottedPath) {
  auto r = fromYaml(R"(
name: a
runtime: codex
colour: blue
provider: {base_url: "https://x.example", apikey: k}
workspace: {git: {url: "https://x.example/r", branch: main}}
mcp_servers: {m: {url: "https://m.example", header: {}}}
limits: {max_turn: 3}
)");
  ASSERT_FALSE(r.ok());
  for (const char* path : {"colour", "provider.apikey", "workspace.git.branch",
                           "mcp_servers.m.header", "limits.max_turn"})
    EXPECT_EQ(errorAt(r, path), "unknown key") << path;
  EXPECT_EQ(r.errors.size(), 5u) << r.errorText();
}

TEST(AgentDefinition, GitDepthIsANonNegativeInteger) {
  auto deep =
      fromYaml("name: a\nruntime: codex\nworkspace: {git: {url: https://x.example/r, depth: 0}}\n");
  ASSERT_TRUE(deep.ok()) << deep.errorText();
  EXPECT_EQ(deep.git_depth, 0);
  for (const char* bad : {"-1", "2.5", "\"3\"", "2000000"}) {
    auto r = fromYaml(std::string("name: a\nruntime: codex\nworkspace: {git: {url: "
                                  "https://x.example/r, depth: ") +
                      bad + "}}\n");
    EXPECT_EQ(errorAt(r, "workspace.git.depth"),
              "must be an integer from 0 (the whole history) to 1000000")
        << bad;
  }
}

TEST(AgentDefinition, RequiredFields) {
  auto r = fromYaml("model: x\n");
  EXPECT_EQ(errorAt(r, "name"), "is required");
  EXPECT_EQ(errorAt(r, "runtime"), "is required");
  auto not_object = fromYaml("- a\n- b\n");
  ASSERT_FALSE(not_object.ok());
  EXPECT_NE(not_object.errors[0].message.find("must be an object"), std::string::npos);
}

TEST(AgentDefinition, WrongTypesSayWhatWasExpected) {
  auto r = fromYaml("name: a\nruntime: codex\nmodel: [x]\nextra_args: [1, {a: b}]\nenv: [A]\n");
  EXPECT_EQ(errorAt(r, "model"), "must be a string (got array)");
  EXPECT_EQ(errorAt(r, "extra_args[0]"), "must be a string (got integer)");
  EXPECT_EQ(errorAt(r, "extra_args[1]"), "must be a string (got object)");
  EXPECT_EQ(errorAt(r, "env"), "must be an object (got array)");
}

TEST(AgentDefinition, NameAndRuntimeRules) {
  auto r = fromYaml("name: 'bad name'\nruntime: 'no/slash'\n");
  EXPECT_NE(errorAt(r, "name"), "");
  EXPECT_NE(errorAt(r, "runtime"), "");
}

TEST(AgentDefinition, KnownRuntimePredicate) {
  DefinitionOptions options;
  options.known_runtime = [](std::string_view name) { return name == "codex"; };
  EXPECT_TRUE(fromYaml("name: a\nruntime: codex\n", options).ok());
  auto r = fromYaml("name: a\nruntime: gemini\n", options);
  EXPECT_EQ(errorAt(r, "runtime"), "unknown runtime 'gemini'");
}

TEST(AgentDefinition, WireApiValues) {
  EXPECT_TRUE(fromYaml("name: a\nruntime: codex\nprovider: {wire_api: chat}\n").ok());
  auto r = fromYaml("name: a\nruntime: codex\nprovider: {wire_api: grpc}\n");
  EXPECT_NE(errorAt(r, "provider.wire_api"), "");
}

TEST(AgentDefinition, BaseUrlMustBeHttp) {
  auto r = fromYaml("name: a\nruntime: codex\nprovider: {base_url: 'file:///x'}\n");
  EXPECT_NE(errorAt(r, "provider.base_url"), "");
}

TEST(AgentDefinition, WorkspaceRules) {
  auto r = fromYaml(R"(
name: a
runtime: codex
workspace: {path: /workspace/../etc, git: {url: "-oProxyCommand=x", ref: "--orphan"}}
)");
  EXPECT_NE(errorAt(r, "workspace.path"), "");
  EXPECT_NE(errorAt(r, "workspace.git.url"), "");
  EXPECT_NE(errorAt(r, "workspace.git.ref"), "");
  auto no_url = fromYaml("name: a\nruntime: codex\nworkspace: {git: {ref: main}}\n");
  EXPECT_EQ(errorAt(no_url, "workspace.git.url"), "is required");
}

TEST(AgentDefinition, GitShorthandIsAUrl) {
  auto r = fromYaml("name: a\nruntime: codex\nworkspace: {git: 'https://github.com/o/r.git'}\n");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.workspace.git->url, "https://github.com/o/r.git");
  auto bad = fromYaml("name: a\nruntime: codex\nworkspace: {git: 'http://github.com/o/r.git'}\n");
  EXPECT_NE(errorAt(bad, "workspace.git"), "");
}

TEST(AgentDefinition, EnvAndSecretNames) {
  auto r = fromYaml(R"(
name: a
runtime: codex
env: {PATH: /opt/bin, LD_PRELOAD: /x.so, 9BAD: x, ABX_SERVER_TOKEN: t, SHARED: a}
secrets: {PATH: /bin, NPM_TOKEN: x, SHARED: b}
)");
  EXPECT_EQ(errorAt(r, "env.PATH"), "");
  EXPECT_NE(errorAt(r, "env.LD_PRELOAD"), "");
  EXPECT_NE(errorAt(r, "env.9BAD"), "");
  EXPECT_NE(errorAt(r, "env.ABX_SERVER_TOKEN"), "");
  EXPECT_NE(errorAt(r, "secrets.PATH"), "");
  EXPECT_EQ(errorAt(r, "secrets.NPM_TOKEN"), "");
  EXPECT_NE(errorAt(r, "secrets.SHARED").find("also set in env"), std::string::npos);
}

TEST(AgentDefinition, EnvValuesMustBeScalars) {
  auto r = fromYaml("name: a\nruntime: codex\nenv: {A: [1], B: null, C: true}\n");
  EXPECT_NE(errorAt(r, "env.A"), "");
  EXPECT_NE(errorAt(r, "env.B"), "");
  EXPECT_EQ(errorAt(r, "env.C"), "");
}

TEST(AgentDefinition, McpServerRules) {
  auto r = fromYaml(R"(
name: a
runtime: codex
mcp_servers:
  "bad.name": {url: "https://x.example"}
  both: {url: "https://x.example", command: npx}
  neither: {args: [a]}
  headers_on_command: {command: npx, headers: {A: b}}
  args_on_url: {url: "https://x.example", args: [a]}
  bad_url: {url: "ftp://x"}
  bad_header: {url: "https://x.example", headers: {"Bad Name": v, Inject: "a\r\nB: c", Num: 5}}
  not_object: https://x.example
)");
  EXPECT_NE(errorAt(r, "mcp_servers.bad.name"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.both").find("not both"), std::string::npos);
  EXPECT_NE(errorAt(r, "mcp_servers.neither").find("url or command"), std::string::npos);
  EXPECT_NE(errorAt(r, "mcp_servers.headers_on_command.headers"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.args_on_url.args"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.bad_url.url"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.bad_header.headers.Bad Name"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.bad_header.headers.Inject"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.bad_header.headers.Num"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.not_object"), "");
}

TEST(AgentDefinition, McpAllowedTools) {
  auto r = fromYaml(
      "name: a\nruntime: codex\nmcp_servers: {m: {command: x, allowed_tools: [read, write]}}\n");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.mcp_servers[0].allowed_tools, (std::vector<std::string>{"read", "write"}));
}

// Tool names are joined into argv (Claude Code's comma-separated
// --allowedTools): a comma or a space would name another tool.
TEST(AgentDefinition, McpAllowedToolNamesFollowTheNameRule) {
  auto r = fromYaml(
      "name: a\nruntime: codex\nmcp_servers: {m: {command: x, allowed_tools: [read, \"t,Bash\", "
      "\"t Bash\", \"a.b\"]}}\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(errorAt(r, "mcp_servers.m.allowed_tools[0]"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.m.allowed_tools[1]").find("[A-Za-z0-9_-]{1,64}"),
            std::string::npos);
  EXPECT_NE(errorAt(r, "mcp_servers.m.allowed_tools[2]"), "");
  EXPECT_NE(errorAt(r, "mcp_servers.m.allowed_tools[3]"), "");
}

TEST(AgentDefinition, PermissionsValues) {
  EXPECT_EQ(fromYaml("name: a\nruntime: c\npermissions: read_only\n").spec.permissions,
            Permissions::read_only);
  auto r = fromYaml("name: a\nruntime: c\npermissions: root\n");
  EXPECT_NE(errorAt(r, "permissions"), "");
}

TEST(AgentDefinition, LimitsMustBePositive) {
  auto r = fromYaml(R"(
name: a
runtime: codex
limits: {turn_timeout_s: 0, idle_timeout_s: -1, max_turns: 1.5, max_budget_usd: "5",
         max_output_bytes: -8, cpu_seconds: 99999999999}
)");
  EXPECT_NE(errorAt(r, "limits.turn_timeout_s"), "");
  EXPECT_NE(errorAt(r, "limits.idle_timeout_s"), "");
  EXPECT_NE(errorAt(r, "limits.max_turns").find("integer"), std::string::npos);
  EXPECT_NE(errorAt(r, "limits.max_budget_usd"), "");
  EXPECT_NE(errorAt(r, "limits.max_output_bytes"), "");
  EXPECT_EQ(errorAt(r, "limits.cpu_seconds"), "is too large");
}

TEST(AgentDefinition, NullLimitsMeanNoLimit) {
  auto r = fromYaml(
      "name: a\nruntime: c\nlimits: {turn_timeout_s: null, idle_timeout_s: ~, "
      "max_output_bytes: null}\n");
  ASSERT_TRUE(r.ok()) << r.errorText();
  EXPECT_EQ(r.spec.limits.turn_timeout_s, std::nullopt);
  EXPECT_EQ(r.spec.limits.idle_timeout_s, std::nullopt);
  EXPECT_EQ(r.spec.limits.max_output_bytes, std::nullopt);
}

TEST(AgentDefinition, CommandRuntime) {
  auto r = fromYaml(R"(
name: a
runtime: command
command: {argv: [my-agent, --json], parser: jsonl-claude, resume_argv: [my-agent, --resume]}
)");
  ASSERT_TRUE(r.ok()) << r.errorText();
  ASSERT_TRUE(r.spec.command);
  EXPECT_EQ(r.spec.command->argv, (std::vector<std::string>{"my-agent", "--json"}));
  EXPECT_EQ(r.spec.command->parser, "jsonl-claude");
  EXPECT_EQ(r.spec.command->resume_argv.size(), 2u);
  auto defaults = fromYaml("name: a\nruntime: command\ncommand: {argv: [x]}\n");
  ASSERT_TRUE(defaults.ok()) << defaults.errorText();
  EXPECT_EQ(defaults.spec.command->parser, "text");
}

TEST(AgentDefinition, CommandRules) {
  EXPECT_EQ(errorAt(fromYaml("name: a\nruntime: command\n"), "command"),
            "is required with runtime: command");
  EXPECT_EQ(errorAt(fromYaml("name: a\nruntime: codex\ncommand: {argv: [x]}\n"), "command"),
            "is only allowed with runtime: command");
  auto r = fromYaml("name: a\nruntime: command\ncommand: {argv: [], parser: xml}\n");
  EXPECT_NE(errorAt(r, "command.argv"), "");
  EXPECT_NE(errorAt(r, "command.parser"), "");
}

TEST(AgentDefinition, ErrorTextJoinsPathsAndMessages) {
  auto r = fromYaml("name: a\nruntime: codex\nfoo: 1\nbar: 2\n");
  EXPECT_EQ(r.errorText(), "foo: unknown key; bar: unknown key");
}

TEST(AgentDefinition, DuplicateKeysAreErrors) {
  auto r = fromYaml("name: a\nruntime: codex\nenv: {A: '1', A: '2'}\nmodel: x\nmodel: y\n");
  EXPECT_EQ(errorAt(r, "env.A"), "duplicate key");
  EXPECT_EQ(errorAt(r, "model"), "duplicate key");
}

TEST(AgentDefinition, RegistrationWarnings) {
  auto quiet = parseAgentDefinitionBody(R"({"name": "a", "runtime": "codex"})");
  EXPECT_TRUE(registrationWarnings(quiet.spec).empty());
  auto scoped = parseAgentDefinitionBody(
      R"({"name": "a", "runtime": "codex", "permissions": "workspace_write",
          "secrets": {"T": "secret-value"}})");
  EXPECT_TRUE(registrationWarnings(scoped.spec).empty());
  auto risky = parseAgentDefinitionBody(
      R"({"name": "a", "runtime": "codex", "provider": {"api_key": "k-123456"}})");
  ASSERT_EQ(registrationWarnings(risky.spec).size(), 1u);
  EXPECT_NE(registrationWarnings(risky.spec)[0].find("full_access"), std::string::npos);
}

TEST(AgentDefinition, InvalidJsonBody) {
  auto r = parseAgentDefinitionBody("{not json");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].path, "");
  EXPECT_NE(r.errors[0].message.find("Invalid JSON"), std::string::npos);
}

}  // namespace
}  // namespace abx::plugins::agents
