// Attacks on the server's own boundary, each against the real binary: a
// limited identity or an agent's tool shell reading the server's secrets
// from /proc, web pages driving the server through a browser (foreign
// Origin, DNS rebinding through Host), a second listener sharing the port,
// the server's state reached through the files routes, and WebSocket
// handshakes that escape admission and audit.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "security/security_support.h"

namespace abx::testing::security {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kToken = "boundary-token-5e1f9c03";
const std::string kLimitedToken = "limited-token-77aa31d2";
const Headers kAuth = {{"X-Access-Token", kToken}};
const Headers kLimited = {{"X-Access-Token", kLimitedToken}};

/** Two identities: "legacy" (ABX_SERVER_TOKEN, "*") and "limited" (process:run only). */
ServerOptions limitedServer(std::map<std::string, std::string> env = {},
                            std::vector<std::string> args = {}) {
  env["ABX_SERVER_TOKEN"] = kToken;
  env["ABX_TEST_LIMITED_TOKEN"] = kLimitedToken;
  return allPlugins(
      "auth:\n  tokens:\n"
      "    - {id: limited, token_env: ABX_TEST_LIMITED_TOKEN, scopes: ['process:run']}\n",
      std::move(env), std::move(args));
}

std::string shellStdout(const ServerProcess& server, const std::string& command,
                        const Headers& who) {
  // An argv, so the script runs under a real shell (a string is split into words).
  auto r = http(server.port(), "POST", "/shell",
                R"({"command":["/bin/sh","-c",)" + sdk::jsonQuote(command) + "]}", who);
  EXPECT_EQ(r.status, 200) << r.body;
  if (r.status != 200) return {};
  return parseObject(r.body)->getValue<std::string>("stdout");
}

// ------------------------------------------------------------ server secrets

TEST(SecurityEnviron, LimitedIdentityCannotReadTokensFromServerEnviron) {
  ServerProcess server(limitedServer());
  auto out = shellStdout(server, "tr '\\0' '\\n' </proc/$PPID/environ", kLimited);
  EXPECT_THAT(out, HasSubstr("PATH="));  // the attack itself ran
  EXPECT_THAT(out, Not(HasSubstr(kToken)));
  EXPECT_THAT(out, Not(HasSubstr(kLimitedToken)));
  // The wiped names are gone too, not just their values.
  EXPECT_THAT(out, Not(HasSubstr("ABX_SERVER_TOKEN=")));
  // The server still authenticates both after wiping its environment.
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", kAuth).status, 200);
  EXPECT_EQ(http(server.port(), "POST", "/shell", R"({"command":"true"})", kLimited).status, 200);
}

TEST(SecurityEnviron, ReloadKeepsTokensAfterTheEnvironmentWasWiped) {
  ServerProcess server(limitedServer());
  ASSERT_EQ(::kill(server.pid(), SIGHUP), 0);
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(http(server.port(), "POST", "/shell", R"({"command":"true"})", kLimited).status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", kAuth).status, 200);
  EXPECT_THAT(server.stderrText(), Not(HasSubstr("reload rejected")));
}

TEST(SecurityEnviron, AgentToolShellCannotReadServerTokens) {
  auto options = limitedServer({{"ABX_SERVER_ENABLED_GROUPS", "agents"},
                                {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
                                {"ABX_AGENTS_STATE_DIR", "{dir}/state"}});
  // An "agent" whose tool shell reads its parent's environment block.
  options.files["agents.yaml"] =
      "agents:\n  - name: peek\n    runtime: command\n    command:\n"
      "      argv: ['/bin/sh', '-c', \"cat >/dev/null; tr '\\\\0' '\\\\n' </proc/$PPID/environ\"]\n"
      "      parser: text\n";
  ServerProcess server(options);
  auto r = http(server.port(), "POST", "/v1/responses", R"({"model":"peek","input":"hi"})",
                {{"Authorization", "Bearer " + kToken}, {"Content-Type", "application/json"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_THAT(r.body, HasSubstr("PATH="));  // the attack itself ran
  EXPECT_THAT(r.body, Not(HasSubstr(kToken)));
  EXPECT_THAT(r.body, Not(HasSubstr(kLimitedToken)));
}

TEST(SecurityEnviron, SecretsOfAgentDefinitionsLeaveTheEnvironment) {
  const std::string canary = "provider-canary-6d1e0a77";
  auto options = allPlugins({}, {{"ABX_SERVER_TOKEN", kToken},
                                 {"PROVIDER_KEY", canary},
                                 {"ABX_SERVER_ENABLED_GROUPS", "agents"},
                                 {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
                                 {"ABX_AGENTS_STATE_DIR", "{dir}/state"}});
  // The agent spells its key out letter by letter, past the redactor.
  options.files["agents.yaml"] =
      "agents:\n  - name: keyed\n    runtime: command\n    command:\n"
      "      argv: ['/bin/sh', '-c', 'cat >/dev/null; printf %s \"$MY_KEY\" | sed s/./\\&-/g']\n"
      "      parser: text\n"
      "    secrets: {MY_KEY: '${PROVIDER_KEY}'}\n";
  ServerProcess server(options);
  auto out = shellStdout(server, "env; tr '\\0' '\\n' </proc/$PPID/environ", kAuth);
  EXPECT_THAT(out, HasSubstr("PATH="));
  EXPECT_THAT(out, Not(HasSubstr(canary)));
  EXPECT_THAT(out, Not(HasSubstr("PROVIDER_KEY=")));
  // The agent still has it.
  auto r = http(server.port(), "POST", "/v1/responses", R"({"model":"keyed","input":"hi"})",
                {{"Authorization", "Bearer " + kToken}, {"Content-Type", "application/json"}});
  ASSERT_EQ(r.status, 200) << r.body;
  std::string spelled;
  for (char c : canary) spelled += std::string(1, c) + "-";
  EXPECT_THAT(r.body, HasSubstr(spelled));
}

// A same-uid child of a non-root server cannot read the server's memory
// map or memory, nor attach to it: the server is not dumpable.
TEST(SecurityEnviron, SameUserChildCannotReadServerMemory) {
  auto options = limitedServer();
  options.run_as = "nobody";
  ServerProcess server(options);
  // $PPID is the server; python's own parent would be the shell.
  auto out = shellStdout(server,
                         "id -u; head -c 20 /proc/$PPID/maps && echo MAPS-READ; "
                         "python3 -c \"import sys; open('/proc/%s/mem' % sys.argv[1], 'rb')\" "
                         "$PPID 2>/dev/null && echo MEM-OPENED; "
                         "python3 -c \"import ctypes,sys; "
                         "sys.exit(0 if ctypes.CDLL(None).ptrace(16, int(sys.argv[1]), 0, 0) == 0 "
                         "else 1)\" $PPID && echo PTRACE-ATTACHED; true",
                         kLimited);
  EXPECT_THAT(out, HasSubstr("65534"));  // really the same, unprivileged user
  EXPECT_THAT(out, Not(HasSubstr("MAPS-READ")));
  EXPECT_THAT(out, Not(HasSubstr("MEM-OPENED")));
  EXPECT_THAT(out, Not(HasSubstr("PTRACE-ATTACHED")));
}

// ------------------------------------------------------------ browser callers

Headers withOrigin(std::string origin, Headers h = {}) {
  h.emplace_back("Origin", std::move(origin));
  return h;
}

TEST(SecurityOrigin, ForeignOriginCannotRunShellWithoutToken) {
  ServerProcess server(allPlugins());
  // What a page's fetch(..., {method: "POST", mode: "no-cors"}) sends: a
  // "simple" request that needs no preflight.
  auto r = http(server.port(), "POST", "/shell", R"({"command":"echo pwned"})",
                withOrigin("https://evil.example", {{"Content-Type", "text/plain"}}));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_THAT(r.body, Not(HasSubstr("pwned")));
  EXPECT_THAT(r.body, HasSubstr("origin_not_allowed"));
  EXPECT_EQ(r.headers.count("access-control-allow-origin"), 0u);
  // GET too: a page must not read answers either.
  EXPECT_EQ(
      http(server.port(), "GET", "/capabilities", "", withOrigin("https://evil.example")).status,
      403);
  // "null" (sandboxed iframes, file:// pages) is foreign as well.
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", withOrigin("null")).status, 403);
  // A near miss of the server's own origin.
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "",
                 withOrigin("http://127.0.0.1:" + std::to_string(server.port() + 1)))
                .status,
            403);
}

TEST(SecurityOrigin, OwnOriginAndNoOriginStillWork) {
  ServerProcess server(allPlugins());
  std::string port = std::to_string(server.port());
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "").status, 200);
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", withOrigin("http://127.0.0.1:" + port))
                .status,
            200);
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", withOrigin("http://localhost:" + port))
                .status,
            200);
}

TEST(SecurityOrigin, AllowedOriginGetsCorsAnswersAndPreflight) {
  ServerProcess server(allPlugins({}, {}, {"--cors-origin", "https://app.example"}));
  auto r = http(server.port(), "POST", "/shell", R"({"command":"echo ok"})",
                withOrigin("https://app.example", {{"Content-Type", "application/json"}}));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["access-control-allow-origin"], "https://app.example");
  EXPECT_THAT(r.headers["vary"], HasSubstr("Origin"));

  auto pre = http(server.port(), "OPTIONS", "/shell", "",
                  withOrigin("https://app.example",
                             {{"Access-Control-Request-Method", "POST"},
                              {"Access-Control-Request-Headers", "content-type, x-access-token"}}));
  EXPECT_EQ(pre.status, 204) << pre.body;
  EXPECT_EQ(pre.headers["access-control-allow-origin"], "https://app.example");
  EXPECT_THAT(pre.headers["access-control-allow-methods"], HasSubstr("POST"));
  EXPECT_THAT(pre.headers["access-control-allow-headers"], HasSubstr("x-access-token"));
  EXPECT_THAT(pre.headers["access-control-allow-headers"], HasSubstr("content-type"));

  auto evil = http(server.port(), "OPTIONS", "/shell", "",
                   withOrigin("https://evil.example", {{"Access-Control-Request-Method", "POST"}}));
  EXPECT_EQ(evil.status, 403);
  EXPECT_EQ(evil.headers.count("access-control-allow-origin"), 0u);
}

TEST(SecurityOrigin, AllowedOriginsFromTheEnvironment) {
  ServerProcess server(
      allPlugins({}, {{"ABX_SERVER_CORS_ORIGINS", "https://a.example, https://b.example:8443"}}));
  EXPECT_EQ(
      http(server.port(), "GET", "/capabilities", "", withOrigin("https://b.example:8443")).status,
      200);
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", withOrigin("https://b.example")).status,
            403);
}

TEST(SecurityHost, ForeignHostIsRefusedWith421) {
  ServerProcess server(allPlugins());
  // DNS rebinding: a page on attacker.example whose name now resolves to
  // 127.0.0.1 sends its own name as Host (and, same-origin, no Origin at all).
  auto raw = rawHttp(server.port(), "POST /shell HTTP/1.1\r\nHost: attacker.example:" +
                                        std::to_string(server.port()) +
                                        "\r\nContent-Type: text/plain\r\nContent-Length: 24\r\n"
                                        "Connection: close\r\n\r\n{\"command\":\"echo pwned\"}");
  EXPECT_THAT(raw, ::testing::StartsWith("HTTP/1.1 421"));
  EXPECT_THAT(raw, HasSubstr("host_not_allowed"));
  EXPECT_THAT(raw, Not(HasSubstr("pwned\\n")));
  const std::string port = std::to_string(server.port());
  for (const std::string& host : {std::string("127.0.0.1"), std::string("localhost"),
                                  "127.0.0.1:" + port, "localhost:" + port}) {
    auto ok = rawHttp(server.port(),
                      "GET /health HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_THAT(ok, ::testing::StartsWith("HTTP/1.1 200")) << host;
  }
}

TEST(SecurityHost, AllowedHostFlagAndEnvironment) {
  ServerProcess from_env(
      allPlugins({}, {{"ABX_SERVER_ALLOWED_HOSTS", "sandbox-7.internal, b.example"}}));
  auto env_ok = rawHttp(from_env.port(),
                        "GET /capabilities HTTP/1.1\r\nHost: sandbox-7.internal:9000\r\n"
                        "Connection: close\r\n\r\n");
  EXPECT_THAT(env_ok, ::testing::StartsWith("HTTP/1.1 200"));
  // The flag wins over the variable.
  ServerProcess server(allPlugins({}, {{"ABX_SERVER_ALLOWED_HOSTS", "sandbox-7.internal"}},
                                  {"--allowed-host", "box.example"}));
  auto env_lost = rawHttp(server.port(),
                          "GET /capabilities HTTP/1.1\r\nHost: sandbox-7.internal\r\n"
                          "Connection: close\r\n\r\n");
  EXPECT_THAT(env_lost, ::testing::StartsWith("HTTP/1.1 421"));
  for (std::string host : {"box.example", "BOX.EXAMPLE:1"}) {
    auto ok = rawHttp(server.port(), "GET /capabilities HTTP/1.1\r\nHost: " + host +
                                         "\r\nConnection: close\r\n\r\n");
    EXPECT_THAT(ok, ::testing::StartsWith("HTTP/1.1 200")) << host;
  }
  auto bad =
      rawHttp(server.port(),
              "GET /capabilities HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(bad, ::testing::StartsWith("HTTP/1.1 421"));
}

// ------------------------------------------------------------ the WebSocket port

struct Pty {
  int port = 0;
  std::string target;
};

Pty createPty(const ServerProcess& server, const Headers& who) {
  auto r = http(server.port(), "POST", "/pty/sessions", R"({"shell":"/bin/sh"})", who);
  EXPECT_EQ(r.status, 200) << r.body;
  auto url = parseObject(r.body)->getValue<std::string>("ws_url");
  auto after_scheme = url.substr(std::string("ws://").size());
  auto colon = after_scheme.find(':');
  auto slash = after_scheme.find('/');
  Pty p;
  p.port = std::stoi(after_scheme.substr(colon + 1, slash - colon - 1));
  p.target = after_scheme.substr(slash);
  return p;
}

std::string handshake(const Pty& pty, const std::string& extra_headers,
                      const std::string& target = {}) {
  return rawHttp(pty.port,
                 "GET " + (target.empty() ? pty.target : target) +
                     " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(pty.port) +
                     "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                     "Sec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
                     extra_headers + "\r\n",
                 2s);
}

ServerOptions ptyServer(const std::string& policy = {}) {
  auto o = allPlugins(policy, {{"ABX_SERVER_TOKEN", kToken}});
  o.args.insert(o.args.end(), {"--pty-port", "0"});
  return o;
}

TEST(SecurityOrigin, ForeignOriginCannotOpenTheTerminalWebSocket) {
  ServerProcess server(ptyServer());
  auto pty = createPty(server, kAuth);
  // The ticket in ws_url is what a page would have; the Origin gives it away.
  auto evil = handshake(pty, "Origin: https://evil.example\r\n");
  EXPECT_THAT(evil, ::testing::StartsWith("HTTP/1.1 403"));
  EXPECT_THAT(evil, HasSubstr("origin_not_allowed"));
  auto foreign_host = rawHttp(pty.port,
                              "GET " + pty.target +
                                  " HTTP/1.1\r\nHost: attacker.example\r\nConnection: Upgrade\r\n"
                                  "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
                              2s);
  EXPECT_THAT(foreign_host, ::testing::StartsWith("HTTP/1.1 421"));
}

TEST(SecurityWsAdmission, HandshakesAreRateLimitedAndAudited) {
  ServerProcess server(
      ptyServer("audit_log: '{dir}/audit.jsonl'\n"
                "endpoints:\n  pty_connect:\n    audit: all\n    limits: {rate_per_minute: 2}\n"));
  auto pty = createPty(server, kAuth);
  std::string token = "X-Access-Token: " + kToken + "\r\n";
  auto first = handshake(pty, token);
  EXPECT_THAT(first, ::testing::StartsWith("HTTP/1.1 101"));
  auto second = handshake(pty, token);
  EXPECT_THAT(second, ::testing::StartsWith("HTTP/1.1 101"));
  auto third = handshake(pty, token);
  EXPECT_THAT(third, ::testing::StartsWith("HTTP/1.1 429"));
  EXPECT_THAT(third, HasSubstr("rate_limited"));

  std::this_thread::sleep_for(200ms);
  std::ifstream in(server.dir() + "/audit.jsonl");
  std::stringstream audit;
  audit << in.rdbuf();
  int connects = 0, denied = 0;
  for (std::string line; std::getline(audit, line);) {
    if (line.find("\"endpoint\":\"pty_connect\"") == std::string::npos) continue;
    ++connects;
    if (line.find("\"decision\":\"deny\"") != std::string::npos) ++denied;
    EXPECT_THAT(line, HasSubstr("\"identity\":\"legacy\""));
  }
  EXPECT_EQ(connects, 3);
  EXPECT_EQ(denied, 1);
}

// ------------------------------------------------------------ port ownership

bool canBindReusePort(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool bound =
      ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(fd, 8) == 0;
  ::close(fd);
  return bound;
}

TEST(SecurityPorts, NoSecondListenerOnTheServersPorts) {
  ServerProcess server(ptyServer());
  EXPECT_FALSE(canBindReusePort(server.port()));
  auto pty = createPty(server, kAuth);
  EXPECT_FALSE(canBindReusePort(pty.port));
}

// ------------------------------------------------------------ state directory

/** Every files route aimed at @p path (a file) and @p dir (its directory). */
void expectFilesRoutesRefuse(const ServerProcess& server, const std::string& dir,
                             const std::string& file) {
  auto q = [](const std::string& p) { return sdk::jsonQuote(p); };
  struct Call {
    std::string method, target, body;
  };
  std::vector<Call> calls = {
      {"GET", "/download?path=" + file, ""},
      {"GET", "/files/download-stream?path=" + file, ""},
      {"GET", "/files/list?path=" + dir, ""},
      {"GET", "/files/stat?path=" + file, ""},
      {"POST", "/files/archive", "{\"paths\":[" + q(dir) + "]}"},
      {"POST", "/upload", "{\"path\":" + q(file) + ",\"content_base64\":\"e30=\"}"},
      {"POST", "/files/upload-stream", "{\"path\":" + q(file) + ",\"content_base64\":\"e30=\"}"},
      {"POST", "/files/mkdir", "{\"path\":" + q(dir + "/new") + "}"},
      {"DELETE", "/files?path=" + file, ""},
      {"POST", "/files/move", "{\"source\":" + q(file) + ",\"destination\":\"moved.json\"}"},
  };
  for (const auto& c : calls) {
    auto r = http(server.port(), c.method, c.target, c.body, kAuth);
    EXPECT_EQ(r.status, 403) << c.method << " " << c.target << ": " << r.body;
  }
  // Into the state dir from outside.
  std::ofstream(server.dir() + "/outside.txt") << "x";
  auto in = http(server.port(), "POST", "/files/move",
                 "{\"source\":\"outside.txt\",\"destination\":" + q(dir + "/planted") + "}", kAuth);
  EXPECT_EQ(in.status, 403) << in.body;
  // Search from the base dir never lists what is inside it.
  auto found = http(server.port(), "POST", "/files/search", R"({"pattern":"*"})", kAuth);
  EXPECT_EQ(found.status, 200) << found.body;
  EXPECT_THAT(found.body, Not(HasSubstr(file.substr(file.rfind('/') + 1))));
}

TEST(SecurityStateDir, DefaultStateIsOutsideTheBaseDir) {
  // HOME inside the base dir: where the state used to go by default.
  // A non-root server (the images' case) with HOME as its base dir: the
  // state goes under $XDG_STATE_HOME — inside the base dir here — and is
  // refused all the same.
  auto options = allPlugins({}, {{"ABX_SERVER_TOKEN", kToken},
                                 {"XDG_STATE_HOME", "{dir}/.local/state"},
                                 {"ABX_SERVER_ENABLED_GROUPS", "agents"}});
  options.run_as = "nobody";
  ServerProcess server(options);
  // Content before path: the bytes are staged in the state dir first.
  auto up =
      http(server.port(), "POST", "/upload", R"({"content_base64":"e30=","path":"a.json"})", kAuth);
  ASSERT_EQ(up.status, 200) << up.body;
  EXPECT_FALSE(std::filesystem::exists(server.dir() + "/.agent-sandbox"));
  ASSERT_TRUE(std::filesystem::is_directory(server.dir() + "/.local/state/agent-sandbox"));
  EXPECT_EQ(http(server.port(), "GET", "/files/list?path=.local/state", "", kAuth).status, 200);
  EXPECT_EQ(
      http(server.port(), "GET", "/files/list?path=.local/state/agent-sandbox", "", kAuth).status,
      403);
}

TEST(SecurityStateDir, EveryFilesRouteRefusesTheStateDir) {
  auto options = allPlugins({}, {{"ABX_SERVER_TOKEN", kToken},
                                 {"ABX_SERVER_STATE_DIR", "{dir}/state"},
                                 {"ABX_AGENTS_STATE_DIR", "{dir}/agent-state"},
                                 {"ABX_AGENTS_CONFIG", "{dir}/agents.yaml"},
                                 {"ABX_SERVER_ENABLED_GROUPS", "agents"}});
  options.files["agents.yaml"] =
      "agents:\n  - name: echo\n    runtime: command\n    command:\n"
      "      argv: ['/bin/cat']\n      parser: text\n";
  ServerProcess server(options);
  auto turn = http(server.port(), "POST", "/v1/responses", R"({"model":"echo","input":"hi"})",
                   {{"Authorization", "Bearer " + kToken}, {"Content-Type", "application/json"}});
  ASSERT_EQ(turn.status, 200) << turn.body;
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(std::filesystem::exists(server.dir() + "/agent-state/sessions.json"));
  expectFilesRoutesRefuse(server, "agent-state", "agent-state/sessions.json");
  std::filesystem::create_directories(server.dir() + "/state/files-staging");
  std::ofstream(server.dir() + "/state/files-staging/x.json") << "{}";
  expectFilesRoutesRefuse(server, "state", "state/files-staging/x.json");
  // Spelled through a symlink from an allowed place.
  std::filesystem::create_directory_symlink(server.dir() + "/agent-state",
                                            server.dir() + "/innocent");
  EXPECT_EQ(http(server.port(), "GET", "/download?path=innocent/sessions.json", "", kAuth).status,
            403);
}

// ------------------------------------------------------------ reload

int openFds(pid_t pid) {
  int n = 0;
  for ([[maybe_unused]] auto& e :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd"))
    ++n;
  return n;
}

// The descriptor count once it stopped changing (a reload in progress holds
// its new audit file beside the old one for a moment).
int settledFds(pid_t pid) {
  int count = openFds(pid);
  for (int settled = 0, tries = 0; settled < 3 && tries < 25; ++tries) {
    std::this_thread::sleep_for(200ms);
    const int now = openFds(pid);
    settled = now == count ? settled + 1 : 0;
    count = now;
  }
  return count;
}

void reloadTwentyTimes(pid_t pid) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(::kill(pid, SIGHUP), 0);
    std::this_thread::sleep_for(50ms);
  }
}

TEST(SecurityReload, ReloadsDoNotLeakAuditLogDescriptors) {
  ServerProcess server(
      allPlugins("audit_log: '{dir}/audit.jsonl'\n", {{"ABX_SERVER_TOKEN", kToken}}));
  const int before = settledFds(server.pid());
  // The first reloads may open what a server opens once (a plugin's lazy
  // descriptors); a leak grows with every reload, so the second twenty must
  // add nothing.
  reloadTwentyTimes(server.pid());
  const int after_first = settledFds(server.pid());
  reloadTwentyTimes(server.pid());
  const int after_second = settledFds(server.pid());
  EXPECT_LE(after_second, after_first) << "before " << before;
  EXPECT_LE(after_first, before + 3);
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", kAuth).status, 200);
}

}  // namespace
}  // namespace abx::testing::security
