// Integration: the policy engine in the real server — sources, layers,
// identities and scopes, limits, paths through the SDK's PathGuard, audit,
// SIGHUP reload (and what it frees), child environment scrubbing, and
// check-config --explain agreeing with the live server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "abx/sdk/subprocess.h"
#include "support/build_kind.h"
#include "support/proc_file.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kManifest =
    "plugins:\n  - name: commands\n    file: abx_commands.so\n"
    "    settings:\n      commands_file: {dir}/commands.yaml\n"
    "  - name: echo\n    file: " +
    fixtureDir() + "/abx_test_echo.so\n";
const std::string kCommands =
    "commands:\n  - name: show-env\n    argv: [\"/usr/bin/env\"]\n"
    "    env: {ABX_SERVER_TOKEN: leaked-a, CI_TOKEN: leaked-b, VISIBLE: yes}\n"
    "  - name: slow\n    argv: [\"/bin/sh\", \"-c\", \"sleep 1; echo long-done\"]\n";

// sha256("admin-token-123")
const std::string kAdminSha = "6717e5c62baa84bd092a904b427653496bd0559f728b87647bf731a6f0febde1";

ServerOptions withPolicy(const std::string& policy, std::map<std::string, std::string> env = {}) {
  ServerOptions o;
  o.files = {{"plugins.yaml", kManifest}, {"commands.yaml", kCommands}, {"policy.yaml", policy}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--policy", "{dir}/policy.yaml"};
  o.env = std::move(env);
  return o;
}

using Headers = std::vector<std::pair<std::string, std::string>>;
Headers token(const std::string& t) { return {{"X-Access-Token", t}}; }

TEST(Policy, EndpointRuleDisablesWithItsRuleName) {
  ServerProcess server(withPolicy("endpoints:\n  echo_post: {enabled: false}\n"));
  auto r = http(server.port(), "POST", "/echo", "{}");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"endpoint_disabled","endpoint":"echo_post",)"
                                R"("rule":"policy:endpoints.echo_post")"));
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1").status, 200);
}

TEST(Policy, MoreSpecificSelectorWinsAndEnvOnlyTurnsGroupsOn) {
  ServerProcess server(
      withPolicy("groups: {echo: false}\n"
                 "endpoints:\n  echo_item: {enabled: true}\n"
                 "  \"echo_p*\": {enabled: false}\n",
                 {{"ABX_SERVER_ENABLED_GROUPS", "echo_optin"}}));
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1").status, 200);  // exact beats group
  auto glob = http(server.port(), "GET", "/echo/path?path=x");
  EXPECT_THAT(glob.body, HasSubstr(R"("rule":"policy:endpoints.echo_p*")"));
  auto group = http(server.port(), "GET", "/echo/scoped");
  EXPECT_THAT(group.body, HasSubstr(R"("rule":"policy:groups.echo")"));
  EXPECT_EQ(http(server.port(), "GET", "/echo-optin/ping").status, 200);
}

TEST(Policy, PluginsToggleGroupsThroughTheCodeLayer) {
  ServerOptions o = withPolicy("groups: {}\n");
  o.files["plugins.yaml"] =
      kManifest + "  - name: toggle\n    file: " + fixtureDir() + "/code_toggle.so\n";
  ServerProcess server(o);
  auto on = http(server.port(), "GET", "/echo-optin/ping");
  EXPECT_EQ(on.status, 200);
  auto off = http(server.port(), "GET", "/fixture/code_toggle");
  EXPECT_EQ(off.status, 404);
  EXPECT_THAT(off.body, HasSubstr(R"("rule":"code:disable_group:fixture_code_toggle")"));
  // The policy layer comes later and wins.
  ServerOptions later = withPolicy("groups: {echo_optin: false}\n");
  later.files["plugins.yaml"] = o.files["plugins.yaml"];
  ServerProcess server2(later);
  EXPECT_THAT(http(server2.port(), "GET", "/echo-optin/ping").body,
              HasSubstr(R"("rule":"policy:groups.echo_optin")"));
}

TEST(Policy, IdentitiesAndScopes) {
  ServerProcess server(
      withPolicy("auth:\n  tokens:\n"
                 "    - {id: ci, token_env: CI_TOKEN, scopes: [\"echo:read\"]}\n"
                 "    - {id: admin, token_sha256: \"" +
                     kAdminSha +
                     "\", scopes: [\"*\"]}\n"
                     "endpoints:\n  echo_post: {scopes: [\"echo:write\"]}\n",
                 {{"CI_TOKEN", "ci-token-123"}, {"ABX_SERVER_TOKEN", "legacy-token-1"}}));
  int p = server.port();
  EXPECT_EQ(http(p, "GET", "/echo/scoped").status, 401);
  EXPECT_EQ(http(p, "GET", "/echo/scoped", "", token("ci-token-123")).status, 200);
  auto denied = http(p, "POST", "/echo", "{}", token("ci-token-123"));
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body,
            R"({"error":"Missing scope 'echo:write' for endpoint 'echo_post'",)"
            R"("type":"PermissionError","code":"missing_scope","endpoint":"echo_post",)"
            R"("scope":"echo:write"})");
  auto admin = http(p, "POST", "/echo", "{}", token("admin-token-123"));
  EXPECT_EQ(admin.status, 200);
  EXPECT_THAT(admin.body, HasSubstr(R"("identity":"admin")"));
  auto legacy = http(p, "POST", "/echo", "{}", token("legacy-token-1"));
  EXPECT_EQ(legacy.status, 200);
  EXPECT_THAT(legacy.body, HasSubstr(R"("identity":"legacy")"));
  auto caps = http(p, "GET", "/capabilities", "", token("ci-token-123"));
  EXPECT_THAT(caps.body, HasSubstr(R"("identity":{"id":"ci","scopes":["echo:read"]})"));
}

TEST(Policy, RateLimitAnswers429WithRetryAfter) {
  ServerProcess server(withPolicy("endpoints:\n  echo_item: {limits: {rate_per_minute: 2}}\n"));
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1").status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/2").status, 200);
  auto r = http(server.port(), "GET", "/echo/items/3");
  EXPECT_EQ(r.status, 429);
  EXPECT_THAT(r.body, HasSubstr(R"("code":"rate_limited","endpoint":"echo_item",)"
                                R"("limit":"rate_per_minute","retry_after":30})"));
  EXPECT_EQ(r.headers["retry-after"], "30");
}

TEST(Policy, ConcurrencyLimitAnswers429) {
  ServerProcess server(withPolicy("endpoints:\n  echo_stream: {limits: {max_concurrency: 1}}\n"));
  HttpResult slow;
  std::thread first(
      [&] { slow = http(server.port(), "POST", "/echo/stream", R"({"count":10,"delay_ms":40})"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  auto second = http(server.port(), "POST", "/echo/stream", R"({"count":1})");
  first.join();
  EXPECT_EQ(slow.status, 200);
  EXPECT_EQ(second.status, 429);
  EXPECT_THAT(second.body, HasSubstr(R"("code":"concurrency_limited")"));
  // The slot is released when the handler returns.
  EXPECT_EQ(http(server.port(), "POST", "/echo/stream", R"({"count":1})").status, 200);
}

TEST(Policy, MaxRequestBytesAndParamsReachTheHandler) {
  ServerProcess server(
      withPolicy("defaults: {limits: {timeout_seconds: 42}, params: {overwrite: false}}\n"
                 "endpoints:\n  echo_post: {limits: {max_request_bytes: 10}}\n"));
  auto big = http(server.port(), "POST", "/echo", R"({"a":"0123456789"})");
  EXPECT_EQ(big.status, 413);
  EXPECT_THAT(big.body, HasSubstr(R"("limit":"max_request_bytes")"));
  auto rule = http(server.port(), "GET", "/echo/policy");
  EXPECT_EQ(rule.body, R"({"rule":"default:echo","timeout_seconds":42,"overwrite":false})");
}

TEST(Policy, PathRulesReachPluginsThroughThePathGuard) {
  ServerOptions o = withPolicy(
      "endpoints:\n  echo_path:\n    paths: {allow: [\"{dir}/in\"], "
      "deny: [\"**/secret/**\"], read_only: [\"{dir}/in/ro\"]}\n");
  ServerProcess server(o);
  std::filesystem::create_directories(server.dir() + "/in/ro");
  std::filesystem::create_directories(server.dir() + "/in/secret");
  int p = server.port();
  auto ok = http(p, "GET", "/echo/path?path=" + server.dir() + "/in/a.txt");
  EXPECT_EQ(ok.status, 200) << ok.body;
  auto outside = http(p, "GET", "/echo/path?path=" + server.dir() + "/other.txt");
  EXPECT_EQ(outside.status, 403);
  EXPECT_THAT(outside.body, HasSubstr(R"("code":"path_not_allowed")"));
  auto denied = http(p, "GET", "/echo/path?path=" + server.dir() + "/in/secret/x");
  EXPECT_THAT(denied.body, HasSubstr(R"("code":"path_denied")"));
  auto ro = http(p, "GET", "/echo/path?op=write&path=" + server.dir() + "/in/ro/x");
  EXPECT_THAT(ro.body, HasSubstr(R"("code":"read_only")"));
  auto proc = http(p, "GET", "/echo/path?path=/proc/self/environ");
  EXPECT_THAT(proc.body, HasSubstr(R"("code":"path_denied")"));
}

TEST(Policy, StartupRejectsUnknownKeysAndIdsWithAHint) {
  {
    auto o = withPolicy("endpoints:\n  echo_post: {limits: {max_byte: 5}}\n");
    o.expect_ready = false;
    ServerProcess server(o);
    ASSERT_EQ(server.waitExit(std::chrono::seconds(10)), 2);
    EXPECT_THAT(server.stderrText(), HasSubstr("(did you mean 'max_bytes'?)"));
  }
  auto o = withPolicy("endpoints:\n  echo_psot: {enabled: false}\n");
  o.expect_ready = false;
  ServerProcess server(o);
  ASSERT_EQ(server.waitExit(std::chrono::seconds(10)), 2);
  EXPECT_THAT(server.stderrText(),
              HasSubstr("unknown endpoint 'echo_psot' (did you mean 'echo_post'?)"));
}

TEST(Policy, PresetLockedLeavesOnlyCore) {
  ServerOptions o;
  o.files = {{"plugins.yaml", kManifest}, {"commands.yaml", kCommands}};
  o.args = {"--plugins", "{dir}/plugins.yaml", "--preset", "locked"};
  ServerProcess server(o);
  auto r = http(server.port(), "POST", "/echo", "{}");
  EXPECT_EQ(r.status, 404);
  EXPECT_THAT(r.body, HasSubstr(R"("rule":"preset:locked")"));
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  auto caps = http(server.port(), "GET", "/capabilities");
  EXPECT_EQ(caps.status, 200);
  EXPECT_THAT(caps.body, HasSubstr(R"("policy":{"preset":"locked","revision":1)"));
}

TEST(Policy, InlineEnvPolicyBeatsThePolicyFileVariable) {
  ServerOptions o;
  o.files = {{"plugins.yaml", kManifest},
             {"commands.yaml", kCommands},
             {"file.yaml", "endpoints:\n  echo_item: {enabled: false}\n"}};
  o.args = {"--plugins", "{dir}/plugins.yaml"};
  o.env = {{"ABX_SERVER_POLICY", R"({"endpoints":{"echo_post":{"enabled":false}}})"},
           {"ABX_SERVER_POLICY_FILE", "{dir}/file.yaml"}};
  ServerProcess server(o);
  EXPECT_EQ(http(server.port(), "POST", "/echo", "{}").status, 404);
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/1").status, 200);
}

TEST(Policy, SighupReloadsAndKeepsTheOldPolicyWhenTheNewOneIsInvalid) {
  ServerProcess server(withPolicy("endpoints:\n  echo_item: {enabled: true}\n"));
  int p = server.port();
  EXPECT_EQ(http(p, "POST", "/echo", "{}").status, 200);
  std::ofstream(server.dir() + "/policy.yaml") << "endpoints:\n  echo_post: {enabled: false}\n";
  ::kill(server.pid(), SIGHUP);
  bool reloaded = false;
  for (int i = 0; i < 100 && !reloaded; ++i) {
    reloaded = http(p, "POST", "/echo", "{}").status == 404;
    if (!reloaded) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(reloaded);
  EXPECT_THAT(http(p, "GET", "/capabilities").body, HasSubstr(R"("revision":2)"));

  std::ofstream(server.dir() + "/policy.yaml") << "endpoints:\n  echo_post: {enabld: true}\n";
  ::kill(server.pid(), SIGHUP);
  bool logged = false;
  for (int i = 0; i < 100 && !logged; ++i) {
    logged = server.stderrText().find("reload rejected") != std::string::npos;
    if (!logged) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(logged);
  EXPECT_EQ(http(p, "POST", "/echo", "{}").status, 404);  // old policy still in force
}

TEST(Policy, ServerSecretsNeverReachChildren) {
  ServerProcess server(
      withPolicy("auth:\n  tokens:\n    - {id: ci, token_env: CI_TOKEN, scopes: [\"*\"]}\n",
                 {{"CI_TOKEN", "ci-token-123"}, {"ABX_SERVER_TOKEN", "legacy-token-1"}}));
  auto r = http(server.port(), "POST", "/commands/show-env", "{}", token("ci-token-123"));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr("VISIBLE=yes"));
  EXPECT_THAT(r.body, Not(HasSubstr("ABX_SERVER_TOKEN")));
  EXPECT_THAT(r.body, Not(HasSubstr("CI_TOKEN")));
}

TEST(Policy, AuditLogGoesToTheConfiguredFileWithoutSecrets) {
  ServerProcess server(
      withPolicy("audit_log: {dir}/audit.jsonl\n"
                 "endpoints:\n  echo_post: {audit: all}\n",
                 {{"ABX_SERVER_TOKEN", "legacy-token-1"}}));
  http(server.port(), "POST", "/echo", R"({"secret_body":"x"})", token("legacy-token-1"));
  http(server.port(), "GET", "/echo/items/1", "", token("wrong-token"));
  server.stop();
  std::ifstream in(server.dir() + "/audit.jsonl");
  std::stringstream ss;
  ss << in.rdbuf();
  auto text = ss.str();
  EXPECT_THAT(text, HasSubstr(R"("identity":"legacy","endpoint":"echo_post")"));
  EXPECT_THAT(text, HasSubstr(R"("decision":"allow")"));
  EXPECT_THAT(text, HasSubstr(R"("endpoint":"echo_item")"));
  EXPECT_THAT(text, HasSubstr(R"("decision":"deny")"));
  EXPECT_THAT(text, Not(HasSubstr("secret_body")));
  EXPECT_THAT(text, Not(HasSubstr("legacy-token-1")));
  EXPECT_THAT(text, Not(HasSubstr("wrong-token")));
}

// check-config --explain and POST /capabilities/check must give the same
// verdict for every (policy, endpoint, path, scopes) case.
TEST(Policy, ExplainAgreesWithTheLiveServer) {
  const std::vector<std::string> policies = {
      "endpoints:\n  echo_post: {enabled: false}\n",
      "defaults: {scopes: [\"echo:read\"]}\nendpoints:\n  echo_path: {paths: {allow: "
      "[\"{dir}/a\"], "
      "deny: [\"**/x/**\"], read_only: [\"{dir}/a/ro\"]}}\n",
      "groups: {echo: false}\nendpoints:\n  echo_item: {enabled: true, scopes: [\"items:get\"]}\n"};
  const std::vector<std::string> endpoints = {"echo_post", "echo_path", "echo_item", "health"};
  const std::vector<std::string> paths = {
      "", "{dir}/a/f", "{dir}/a/x/f", "{dir}/a/ro/f", "/etc/passwd", "../../etc", "/proc/self"};
  const std::vector<std::string> scope_sets = {"*", "echo:read", "items:get,echo:read", "none:x"};
  const std::vector<std::string> ops = {"read", "write"};
  int cases = 0, combination = 0;
  for (const auto& policy : policies) {
    std::string tokens = "auth:\n  tokens:\n";
    std::map<std::string, std::string> env;
    for (std::size_t i = 0; i < scope_sets.size(); ++i) {
      std::string scopes;
      std::stringstream list(scope_sets[i]);
      for (std::string s; std::getline(list, s, ',');)
        scopes += (scopes.empty() ? "\"" : ",\"") + s + "\"";
      tokens += "    - {id: t" + std::to_string(i) + ", token_env: TOK" + std::to_string(i) +
                ", scopes: [" + scopes + "]}\n";
      env["TOK" + std::to_string(i)] = "token-number-" + std::to_string(i);
    }
    ServerProcess server(withPolicy(policy + tokens, env));
    for (const auto& endpoint : endpoints)
      for (const auto& raw_path : paths)
        for (std::size_t si = 0; si < scope_sets.size(); ++si)
          for (const auto& op : ops) {
            // Every fifth combination: each dimension still varies, and the
            // test stays a few seconds long (each case spawns check-config).
            if (combination++ % 5 != 0) continue;
            std::string path = raw_path;
            if (auto pos = path.find("{dir}"); pos != std::string::npos)
              path.replace(pos, 5, server.dir());
            std::string body = "{\"endpoint\":\"" + endpoint + "\",\"op\":\"" + op + "\"" +
                               (path.empty() ? "" : ",\"path\":\"" + path + "\"") + "}";
            auto live = http(server.port(), "POST", "/capabilities/check", body,
                             token("token-number-" + std::to_string(si)));
            ASSERT_EQ(live.status, 200) << live.body;

            sdk::SpawnOptions cli;
            cli.argv = {serverBinary(), "check-config", "--plugins", server.dir() + "/plugins.yaml",
                        "--plugin-dir", pluginDir(),    "--policy",  server.dir() + "/policy.yaml",
                        "--json",       "--explain",    endpoint,    "--scopes",
                        scope_sets[si], "--op",         op};
            if (!path.empty()) {
              cli.argv.push_back("--path");
              cli.argv.push_back(path);
            }
            cli.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
            cli.env.push_back("ABX_SERVER_BASE_DIR=" + server.dir());
            for (const auto& [k, v] : env) cli.env.push_back(k + "=" + v);
            cli.stdin_pipe = false;
            auto done = sdk::Subprocess::run(cli, {std::chrono::seconds(20)});
            ASSERT_TRUE(done.isOk());
            ASSERT_EQ(done->exit_code, 0) << done->err;
            auto pos = done->out.find("\"explain\":");
            ASSERT_NE(pos, std::string::npos) << done->out;
            std::string explained = done->out.substr(pos + 10);
            explained = explained.substr(0, explained.rfind('}'));
            EXPECT_EQ(explained, live.body)
                << "policy " << policy << " endpoint " << endpoint << " path " << path << " scopes "
                << scope_sets[si] << " op " << op;
            ++cases;
          }
  }
  EXPECT_GT(cases, 120);
}

// ---- reloads: each frees the revision it replaces once no request holds
// it, so the memory stays flat over hundreds of reloads, and requests in
// flight across a reload (a stream, a long command) finish under the
// policy they started with.

const Headers kAdmin = token("admin-token-123");

/**
 * A policy the size of a real deployment's (200 identities): each revision
 * costs the server tens of KiB, which a leak could not hide.
 */
std::string policyText(const std::string& endpoints) {
  std::string text = "audit_log: {dir}/audit.jsonl\nauth:\n  tokens:\n";
  text += "    - {id: admin, token_sha256: " + kAdminSha + ", scopes: [\"*\"]}\n";
  char digest[65];
  for (int i = 0; i < 200; ++i) {
    std::snprintf(digest, sizeof digest, "%064x", i + 1);
    text += "    - {id: user" + std::to_string(i) + ", token_sha256: " + digest +
            ", scopes: [\"echo:read\", \"commands:run\"]}\n";
  }
  return text + "endpoints:\n" + endpoints;
}

const std::string kEndpoints =
    "  echo_stream: {audit: all}\n"
    "  echo_post: {audit: all, limits: {max_request_bytes: 4096}}\n"
    "  echo_item: {enabled: true}\n";

/** Sends SIGHUP and waits for the log line of @p revision. */
bool reloadTo(ServerProcess& server, int revision) {
  ::kill(server.pid(), SIGHUP);
  const std::string line = "reloaded (revision " + std::to_string(revision) + ")";
  for (int i = 0; i < 1000; ++i) {
    if (server.stderrText().find(line) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

/** VmRSS of @p pid in KiB, or -1. */
long rssKiB(pid_t pid) {
  const std::string status = readProcFile("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmRSS:");
  if (at == std::string::npos) return -1;
  return std::stol(status.substr(at + 6));
}

TEST(PolicyReload, ManyReloadsKeepTheMemoryFlat) {
  ServerProcess server(withPolicy(policyText(kEndpoints)));
  const int p = server.port();
  int revision = 1;
  for (; revision < 50; ++revision) ASSERT_TRUE(reloadTo(server, revision + 1)) << revision;
  ASSERT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
  const long warm = rssKiB(server.pid());
  for (; revision < 200; ++revision) ASSERT_TRUE(reloadTo(server, revision + 1)) << revision;
  ASSERT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
  const long after = rssKiB(server.pid());
  ASSERT_GT(warm, 0);
  ASSERT_GT(after, 0);
  EXPECT_THAT(http(p, "GET", "/capabilities", "", kAdmin).body, HasSubstr(R"("revision":200)"));
  // Keeping every revision (over 100 KiB each here) would add over 15 MiB.
  std::printf("VmRSS after 50 reloads: %ld KiB, after 200: %ld KiB (growth %ld KiB)\n", warm, after,
              after - warm);
  if (kRssIsMeaningful) {
    EXPECT_LT(after - warm, 2048) << "KiB over 150 reloads";
  }
}

TEST(PolicyReload, RequestsInFlightFinishAcrossAReload) {
  ServerProcess server(withPolicy(policyText(kEndpoints)));
  const int p = server.port();
  auto stream = std::async(std::launch::async, [p] {
    return http(p, "POST", "/echo/stream", R"({"count":5,"delay_ms":200})", kAdmin);
  });
  auto slow =
      std::async(std::launch::async, [p] { return http(p, "POST", "/commands/slow", "", kAdmin); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string next = policyText("  echo_item: {enabled: false}\n");
  next.replace(next.find("{dir}"), 5, server.dir());
  std::ofstream(server.dir() + "/policy.yaml") << next;
  ASSERT_TRUE(reloadTo(server, 2));
  // Several more revisions come and go while both still hold revision 1.
  for (int revision = 3; revision <= 6; ++revision) ASSERT_TRUE(reloadTo(server, revision));
  EXPECT_EQ(http(p, "GET", "/echo/items/1", "", kAdmin).status, 404);

  const HttpResult streamed = stream.get();
  EXPECT_EQ(streamed.status, 200);
  EXPECT_THAT(streamed.body, HasSubstr(R"({"step":5})"));
  EXPECT_THAT(streamed.body, HasSubstr(R"({"total":5})"));
  const HttpResult long_request = slow.get();
  EXPECT_EQ(long_request.status, 200) << long_request.body;
  EXPECT_THAT(long_request.body, HasSubstr("long-done"));
  std::ifstream audit(server.dir() + "/audit.jsonl");
  const std::string records((std::istreambuf_iterator<char>(audit)), {});
  // The stream's record when it ended: revision 1 audits it ("audit: all"),
  // the revisions in force by then would not.
  const auto at = records.find(R"("endpoint":"echo_stream")");
  ASSERT_NE(at, std::string::npos) << records;
  const std::string line = records.substr(at, records.find('\n', at) - at);
  EXPECT_THAT(line, HasSubstr(R"("decision":"allow")"));
  EXPECT_THAT(line, HasSubstr(R"("status":200)"));
  EXPECT_EQ(http(p, "POST", "/echo", "{}", kAdmin).status, 200);
}

}  // namespace
}  // namespace abx::testing
