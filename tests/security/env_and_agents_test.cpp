// Attacks on the child environment and the agents' configuration, each
// against the real server: POST /env setting loader, shell, git,
// interpreter, proxy and trust hooks that every later child (git status,
// the pip probe, agent CLIs) would obey; agent CLIs inheriting what POST
// /env set; GET /packages running a pip module planted in the server's
// working directory; a locked agents server running runtime-name models,
// request-level MCP servers and vault credentials; and MCP tool names that
// smuggle extra tools into Claude Code's --allowedTools.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "security/security_support.h"
#include "support/agents_server.h"

namespace abx::testing::security {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "security-env-token-1234";
const Headers kAuth = {{"Authorization", std::string("Bearer ") + kToken},
                       {"Content-Type", "application/json"}};

ServerOptions server(const std::string& policy = {}, std::map<std::string, std::string> env = {}) {
  env["ABX_SERVER_TOKEN"] = kToken;
  env["ABX_SERVER_ENABLED_GROUPS"] = "agents,dev_tools";
  env["ABX_AGENTS_CONFIG"] = "{dir}/agents.yaml";
  env["ABX_AGENTS_STATE_DIR"] = "{dir}/state";
  env["FAKE_AGENT_RECORD"] = "{dir}/record.jsonl";
  env["FAKE_AGENT_STATE_DIR"] = "{dir}/fake-state";
  env["PATH"] = sourceDir() + "/fake_agents:/usr/bin:/bin";
  env["ABX_AGENTS_PASSTHROUGH_ENV"] = "FAKE_AGENT_RECORD,FAKE_AGENT_STATE_DIR,SEC_PASSED_THROUGH";
  auto o = allPlugins(policy, std::move(env));
  o.files["agents.yaml"] = kFakeAgentYaml;
  return o;
}

HttpResult post(const ServerProcess& s, const std::string& target, const std::string& body) {
  return http(s.port(), "POST", target, body, kAuth);
}

HttpResult get(const ServerProcess& s, const std::string& target) {
  return http(s.port(), "GET", target, "", kAuth);
}

std::string errorField(const HttpResult& r, const std::string& field) {
  auto body = parseObject(r.body);
  if (auto error = body->getObject("error")) return error->optValue<std::string>(field, "");
  return body->optValue<std::string>(field, "");
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each name alone is refused with env_protected and the name in the message,
// and its value is not what the request asked for afterwards.
void expectEachRefused(const ServerProcess& s, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    auto r = post(s, "/env", R"({"vars":{")" + name + R"(":"/attacker"}})");
    EXPECT_EQ(r.status, 403) << name << ": " << r.body;
    EXPECT_EQ(errorField(r, "code"), "env_protected") << name;
    EXPECT_THAT(errorField(r, "error"), HasSubstr(name));
    EXPECT_THAT(get(s, "/env?filter=" + name).body, Not(HasSubstr("/attacker"))) << name;
  }
}

TEST(SecurityEnv, LoaderAndLibcHooksAreRefused) {
  ServerProcess s(server());
  expectEachRefused(s, {"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
                        "GCONV_PATH", "GLIBC_TUNABLES", "MALLOC_CHECK_", "MALLOC_ARENA_MAX",
                        "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS", "LOCPATH", "NLSPATH"});
}

TEST(SecurityEnv, ShellStartupHooksAreRefused) {
  ServerProcess s(server());
  expectEachRefused(
      s, {"BASH_ENV", "ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS1", "PS4", "IFS", "SHELLOPTS",
          "BASHOPTS", "BASH_FUNC_ls", "BASH_XTRACEFD", "CDPATH", "GLOBIGNORE", "INPUTRC"});
}

TEST(SecurityEnv, GitConfigFromTheEnvironmentNeverRunsACommand) {
  ServerProcess s(server());
  const std::string repo = s.dir() + "/repo", marker = s.dir() + "/fsmonitor-ran";
  std::filesystem::create_directory(repo);
  ASSERT_EQ(std::system(("cd '" + repo +
                         "' && git init -q -b main . && echo a > a.txt && git add a.txt && "
                         "git -c user.name=t -c user.email=t@t commit -qm init")
                            .c_str()),
            0);
  // The attack: core.fsmonitor through GIT_CONFIG_*, run by the next git status.
  auto r = post(s, "/env",
                R"({"vars":{"GIT_CONFIG_COUNT":"1","GIT_CONFIG_KEY_0":"core.fsmonitor",)"
                R"("GIT_CONFIG_VALUE_0":"touch )" +
                    marker + R"(; true"}})");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorField(r, "code"), "env_protected");
  EXPECT_EQ(get(s, "/git/status?path=repo").status, 200);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "core.fsmonitor ran through POST /env";
  expectEachRefused(s, {"GIT_SSH_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_EXEC_PATH", "GIT_DIR",
                        "GIT_PAGER", "GIT_ASKPASS", "GIT_SSL_NO_VERIFY"});
}

TEST(SecurityEnv, InterpreterHooksAreRefused) {
  ServerProcess s(server());
  // The attack: a sitecustomize module that every later python3 imports.
  const std::string lib = s.dir() + "/pylib", marker = s.dir() + "/sitecustomize-ran";
  std::filesystem::create_directory(lib);
  std::ofstream(lib + "/sitecustomize.py") << "open('" << marker << "', 'w').write('x')\n";
  auto r = post(s, "/env", R"({"vars":{"PYTHONPATH":")" + lib + R"("}})");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(get(s, "/packages?manager=pip").status, 200);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "PYTHONPATH reached the pip probe";
  expectEachRefused(s, {"PYTHONSTARTUP",
                        "PYTHONHOME",
                        "PYTHONWARNINGS",
                        "NODE_OPTIONS",
                        "NODE_PATH",
                        "NODE_COMPILE_CACHE",
                        "PERL5OPT",
                        "PERL5LIB",
                        "PERLLIB",
                        "RUBYOPT",
                        "RUBYLIB",
                        "GEM_PATH",
                        "JAVA_TOOL_OPTIONS",
                        "_JAVA_OPTIONS",
                        "JDK_JAVA_OPTIONS",
                        "CLASSPATH",
                        "GOFLAGS",
                        "LUA_INIT",
                        "PHPRC",
                        "MAKEFLAGS"});
  // NODE_ENV picks no code: it stays settable.
  EXPECT_EQ(post(s, "/env", R"({"vars":{"NODE_ENV":"test"}})").status, 200);
}

TEST(SecurityEnv, ProxyAndTrustVariablesAreRefusedInAnyCase) {
  ServerProcess s(server());
  expectEachRefused(
      s, {"HTTP_PROXY", "https_proxy", "Https_Proxy", "ALL_PROXY", "all_proxy", "NO_PROXY",
          "no_proxy", "FTP_PROXY", "npm_config_https_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR",
          "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
          "NODE_TLS_REJECT_UNAUTHORIZED", "SSLKEYLOGFILE", "OPENSSL_CONF", "CURL_HOME", "WGETRC"});
}

TEST(SecurityEnv, ProgramsRunOnTheUsersBehalfAreRefused) {
  ServerProcess s(server());
  expectEachRefused(s, {"EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
                        "SSH_ASKPASS", "SUDO_ASKPASS"});
}

TEST(SecurityEnv, ConfigurationPlacesAndPackageManagersAreRefused) {
  ServerProcess s(server());
  expectEachRefused(
      s, {"PATH", "HOME", "SHELL", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "TMPDIR", "TMP", "TEMP",
          "npm_config_script_shell", "NPM_CONFIG_REGISTRY", "PIP_INDEX_URL", "PIP_CONFIG_FILE"});
}

TEST(SecurityEnv, OneProtectedNameChangesNothing) {
  ServerProcess s(server());
  auto r = post(s, "/env", R"({"vars":{"SEC_FINE":"1","LD_PRELOAD":"/x.so","ZZ_FINE":"2"}})");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(get(s, "/env?filter=SEC_FINE,ZZ_FINE").body, R"({"variables":{}})");
  EXPECT_EQ(post(s, "/env", R"({"vars":{"SEC_FINE":"1"}})").status, 200);
}

TEST(SecurityEnv, PolicyEnvDenyExtendsTheList) {
  ServerProcess s(server("endpoints:\n  env_set: {params: {env_deny: [\"AWS_*\", KUBECONFIG]}}\n"));
  expectEachRefused(s, {"AWS_CONFIG_FILE", "AWS_PROFILE", "KUBECONFIG"});
  EXPECT_EQ(post(s, "/env", R"({"vars":{"APP_MODE":"dev"}})").status, 200);
}

TEST(SecurityEnv, GetEnvMasksPasswordsInUrls) {
  ServerProcess s(server({}, {{"SEC_DB_URL", "postgres://app:hunter2-db-pass@db:5432/app"}}));
  auto r = get(s, "/env?filter=SEC_DB_URL");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(r.body, Not(HasSubstr("hunter2-db-pass")));
  EXPECT_THAT(r.body, HasSubstr("postgres://app:***@db:5432/app"));
}

TEST(SecurityEnv, AgentClisNeverSeeWhatPostEnvSet) {
  ServerProcess s(server({}, {{"TZ", "UTC"}}));
  // Names the agents' allowlist (TZ, LC_*) or ABX_AGENTS_PASSTHROUGH_ENV let
  // through from the server's start-up environment.
  auto set = post(s, "/env",
                  R"({"vars":{"TZ":"Attacker/Zone","LC_ALL":"attacker-locale",)"
                  R"("SEC_PASSED_THROUGH":"from-post-env"}})");
  ASSERT_EQ(set.status, 200) << set.body;
  auto run = post(s, "/v1/responses", R"({"model":"fake","input":"show env"})");
  ASSERT_EQ(run.status, 200) << run.body;
  EXPECT_THAT(run.body, HasSubstr(R"("status":"completed")"));
  const auto record = readFile(s.dir() + "/record.jsonl");
  ASSERT_THAT(record, HasSubstr("FAKE_AGENT_RECORD"));  // the CLI ran and recorded its env
  EXPECT_THAT(record, HasSubstr(R"("TZ": "UTC")"));
  EXPECT_THAT(record, Not(HasSubstr("Attacker/Zone")));
  EXPECT_THAT(record, Not(HasSubstr("attacker-locale")));
  EXPECT_THAT(record, Not(HasSubstr("from-post-env")));
}

TEST(SecurityProbes, PipModuleInTheServersWorkingDirectoryNeverRuns) {
  auto options = server();
  options.cwd = "{dir}/cwd";
  ServerProcess s(options);
  const std::string marker = s.dir() + "/shadow-pip-ran";
  std::filesystem::create_directories(s.dir() + "/cwd/pip");
  std::ofstream(s.dir() + "/cwd/pip/__main__.py") << "open('" << marker << "', 'w').write('x')\n";
  std::ofstream(s.dir() + "/cwd/pip/__init__.py") << "";
  auto r = get(s, "/packages?manager=pip");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "python3 -m pip ran ./pip/__main__.py";
  EXPECT_EQ(get(s, "/system/info").status, 200);  // the python3 --version probe
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// --- ABX_AGENTS_LOCK_DEFINITIONS=1: only configured definitions run ---------

ServerOptions lockedServer() { return server({}, {{"ABX_AGENTS_LOCK_DEFINITIONS", "1"}}); }

void expectLocked(const HttpResult& r, const std::string& param) {
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(errorField(r, "code"), "definitions_locked") << r.body;
  EXPECT_EQ(errorField(r, "param"), param) << r.body;
}

int recordedCalls(const ServerProcess& s) {
  std::ifstream in(s.dir() + "/record.jsonl");
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(SecurityAgentsLock, RuntimeNameModelsAreRefusedOnBothWires) {
  ServerProcess s(lockedServer());
  for (const std::string runtime : {"codex", "claude-code", "claude", "qwen-code", "cursor"})
    expectLocked(post(s, "/v1/responses", R"({"model":")" + runtime + R"(","input":"hi"})"),
                 "model");
  expectLocked(post(s, "/v1/agents/sessions",
                    R"({"agent_id":"codex","environment":{"type":"none"},"input":"hi"})"),
               "agent_id");
  expectLocked(post(s, "/v1/agents/sessions",
                    R"({"agent":{"model":"claude-code"},"environment":{"type":"none"}})"),
               "agent.model");
  EXPECT_EQ(recordedCalls(s), 0) << "an ephemeral default agent ran";
  auto models = get(s, "/v1/models");
  EXPECT_THAT(models.body, HasSubstr(R"("id":"fake")"));
  EXPECT_THAT(models.body, Not(HasSubstr(R"("id":"codex")")));
  // The configured definition still runs.
  auto run = post(s, "/v1/responses", R"({"model":"fake","input":"hi"})");
  EXPECT_EQ(run.status, 200) << run.body;
  EXPECT_EQ(recordedCalls(s), 1);
}

TEST(SecurityAgentsLock, RequestLevelMcpServersAreRefused) {
  ServerProcess s(lockedServer());
  expectLocked(post(s, "/v1/responses",
                    R"({"model":"fake","input":"hi","tools":[{"type":"mcp","server_label":"x",)"
                    R"("server_url":"http://127.0.0.1:9/mcp","headers":{"X-Key":"k"}}]})"),
               "tools");
  EXPECT_EQ(recordedCalls(s), 0);
}

TEST(SecurityAgentsLock, SessionVaultIdsAreRefused) {
  ServerProcess s(lockedServer());
  auto vault = post(s, "/v1/vaults", R"({"name":"extra"})");
  ASSERT_EQ(vault.status, 200) << vault.body;
  const auto vault_id = parseObject(vault.body)->getValue<std::string>("id");
  ASSERT_EQ(post(s, "/v1/vaults/" + vault_id + "/credentials",
                 R"({"name":"k","auth":{"type":"environment_variable",)"
                 R"("secret_name":"OPENAI_API_KEY","secret_value":"attacker-key-0123456789"}})")
                .status,
            200);
  expectLocked(post(s, "/v1/agents/sessions",
                    R"({"agent_id":"fake","environment":{"type":"none"},"input":"hi",)"
                    R"("vault_ids":[")" +
                        vault_id + R"("]})"),
               "vault_ids");
  EXPECT_EQ(recordedCalls(s), 0);
}

// --- MCP server and tool names -----------------------------------------------

// A Responses request whose MCP tool has @p label and @p allowed (JSON list).
std::string withMcpTool(const std::string& model, const std::string& label,
                        const std::string& allowed) {
  return R"({"model":")" + model + R"(","input":"hi","tools":[{"type":"mcp","server_label":")" +
         label + R"(","server_url":"http://127.0.0.1:9/mcp","allowed_tools":)" + allowed + "}]}";
}

void expectBadName(const HttpResult& r, const std::string& param) {
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(errorField(r, "code"), "invalid_request") << r.body;
  EXPECT_EQ(errorField(r, "param"), param) << r.body;
}

TEST(SecurityMcpNames, CommaToolNamesNeverReachClaudeOnTheResponsesWire) {
  ServerProcess s(server());
  expectBadName(post(s, "/v1/responses", withMcpTool("claude-code", "m", R"(["ok","t,Bash"])")),
                "tools[0].allowed_tools[1]");
  expectBadName(post(s, "/v1/responses", withMcpTool("claude-code", "m,Bash", R"(["t"])")),
                "tools[0].server_label");
  expectBadName(post(s, "/v1/responses", withMcpTool("claude-code", "m", R"(["t Bash"])")),
                "tools[0].allowed_tools[0]");
  expectBadName(
      post(s, "/v1/responses", withMcpTool("claude-code", "m", R"({"tool_names":["t,Bash"]})")),
      "tools[0].allowed_tools.tool_names[0]");
  EXPECT_EQ(recordedCalls(s), 0) << readFile(s.dir() + "/record.jsonl");
  // Valid names still pass through.
  auto ok = post(s, "/v1/responses", withMcpTool("claude-code", "m", R"(["t_1","t-2"])"));
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_THAT(readFile(s.dir() + "/record.jsonl"), HasSubstr("mcp__m__t_1,mcp__m__t-2"));
}

TEST(SecurityMcpNames, CommaToolNamesNeverReachClaudeOnTheAgentsWire) {
  ServerProcess s(server());
  auto r = post(s, "/v1/agents",
                R"({"name":"cc","runtime":"claude-code","permissions":"workspace_write",)"
                R"("mcp_servers":{"m":{"url":"http://127.0.0.1:9/mcp",)"
                R"("allowed_tools":["t,Bash"]}}})");
  expectBadName(r, "mcp_servers.m.allowed_tools[0]");
  auto session = post(s, "/v1/agents/sessions",
                      R"({"agent_id":"cc","environment":{"type":"none"},"input":"hi"})");
  EXPECT_EQ(session.status, 404) << session.body;  // the definition was never stored
  for (int i = 0; i < 20 && recordedCalls(s) == 0; ++i) std::this_thread::sleep_for(50ms);
  EXPECT_THAT(readFile(s.dir() + "/record.jsonl"), Not(HasSubstr("Bash")));
}

}  // namespace
}  // namespace abx::testing::security
