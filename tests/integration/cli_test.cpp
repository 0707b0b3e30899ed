// Integration: the agent-sandbox-server command line (exit codes and output).
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "abx/sdk/subprocess.h"
#include "abx/sdk/version.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

sdk::Completed cli(std::vector<std::string> args, std::vector<std::string> env = {}) {
  sdk::SpawnOptions o;
  o.argv = {serverBinary()};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env = sdk::Subprocess::inheritEnv({"PATH", "HOME"});
  o.env.insert(o.env.end(), env.begin(), env.end());
  o.stdin_pipe = false;
  auto r = sdk::Subprocess::run(o, {std::chrono::seconds(20)});
  EXPECT_TRUE(r.isOk());
  return r ? *r : sdk::Completed{};
}

/** A listening socket on a free 127.0.0.1 port (into @p port), or -1. */
int listenOnLoopback(std::string& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 4) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  port = std::to_string(ntohs(addr.sin_port));
  return fd;
}

std::string writeManifest(const std::string& text) {
  std::string path = "/tmp/abx-cli-manifest-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, VersionAndHelp) {
  auto v = cli({"version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_THAT(
      v.out,
      HasSubstr("agent-sandbox-server 0.1.0 (plugin ABI " + std::to_string(ABX_SDK_ABI_MAJOR) +
                "." + std::to_string(ABX_SDK_ABI_MINOR) + ", SDK " + ABX_SDK_VERSION_STRING + ")"));
  auto h = cli({"serve", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_THAT(h.out, HasSubstr("--insecure-no-auth"));
  auto none = cli({});
  EXPECT_EQ(none.exit_code, 2);
  auto typo = cli({"serve", "--prot", "1"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("unknown option '--prot' (did you mean '--port'?)"));
  auto cmd = cli({"plugin"});
  EXPECT_EQ(cmd.exit_code, 2);
  EXPECT_THAT(cmd.err, HasSubstr("did you mean 'plugins'?"));
}

TEST(Cli, PluginsAndCheckConfigProbeEveryEntry) {
  auto manifest = writeManifest(
      "plugins:\n  - name: commands\n    file: abx_commands.so\n"
      "  - name: old\n    file: " +
      fixtureDir() + "/abi_major_mismatch.so\n    required: false\n");
  auto list = cli({"plugins", "--plugins", manifest, "--plugin-dir", pluginDir(), "--json"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_THAT(list.out, HasSubstr(R"("name":"commands")"));
  EXPECT_THAT(list.out, HasSubstr(R"("state":"ok","required":true,"id":"abx.commands")"));
  EXPECT_THAT(list.out, HasSubstr(R"("error":{"stage":"abi")"));
  EXPECT_EQ(cli({"check-config", "--plugins", manifest, "--plugin-dir", pluginDir()}).exit_code, 0);

  auto required =
      writeManifest("plugins:\n  - name: old\n    file: " + fixtureDir() + "/bad_fingerprint.so\n");
  auto check = cli({"check-config", "--plugins", required, "--plugin-dir", pluginDir()});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_THAT(check.err,
              HasSubstr("bad_fingerprint.so: fingerprint: build fingerprint mismatch on stdlib"));
  std::remove(manifest.c_str());
}

TEST(Cli, HealthcheckExitCodes) {
  ServerProcess server;
  EXPECT_EQ(cli({"healthcheck", "--port", std::to_string(server.port())}).exit_code, 0);
  server.stop();
  EXPECT_EQ(
      cli({"healthcheck", "--port", std::to_string(server.port()), "--timeout", "1"}).exit_code, 1);
}

TEST(Cli, EnvironmentValuesAreCheckedLikeTheirFlags) {
  struct Case {
    std::string variable, value, reason;
  };
  const std::vector<Case> cases = {
      {"ABX_PTY_PORT", "abc", "ABX_PTY_PORT must be a port number 0-65535, got 'abc'"},
      {"ABX_PTY_PORT", "70000", "ABX_PTY_PORT must be a port number 0-65535, got '70000'"},
      {"ABX_SERVER_THREADS", "1", "ABX_SERVER_THREADS must be an integer 2-4096, got '1'"},
      {"ABX_SERVER_MAX_CONNECTIONS", "many",
       "ABX_SERVER_MAX_CONNECTIONS must be an integer 1-2147483647, got 'many'"},
      {"ABX_SERVER_HEAD_TIMEOUT_S", "0",
       "ABX_SERVER_HEAD_TIMEOUT_S must be an integer 1-2147483647, got '0'"},
      {"ABX_SERVER_IDLE_TIMEOUT_S", "-3",
       "ABX_SERVER_IDLE_TIMEOUT_S must be an integer 1-2147483647, got '-3'"},
      {"ABX_SERVER_IO_TIMEOUT_S", "0",
       "ABX_SERVER_IO_TIMEOUT_S must be an integer 1-2147483647, got '0'"},
      {"ABX_SERVER_DRAIN_TIMEOUT_S", "0",
       "ABX_SERVER_DRAIN_TIMEOUT_S must be an integer 1-3600, got '0'"},
      {"ABX_LOG_LEVEL", "loud", "ABX_LOG_LEVEL must be debug, info, warn or error, got 'loud'"},
      {"ABX_LOG_FORMAT", "xml", "ABX_LOG_FORMAT must be text or json, got 'xml'"},
  };
  for (const auto& c : cases) {
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"serve", "--port", "0"}, {"check-config"}}) {
      const std::string& command = args[0];
      auto r = cli(args, {c.variable + "=" + c.value});
      EXPECT_EQ(r.exit_code, 2) << command << " " << c.variable << "=" << c.value;
      EXPECT_EQ(r.err, "agent-sandbox-server: " + c.reason + "\n") << command;
    }
  }
  // The flag's own wording is the same.
  auto flag = cli({"serve", "--pty-port", "abc"});
  EXPECT_EQ(flag.err,
            "agent-sandbox-server: --pty-port must be a port number 0-65535, got 'abc'\n");
}

TEST(Cli, HelpListsEveryVariableTheConfigurationPageDocuments) {
  std::ifstream page(std::string(ABX_SOURCE_DIR) + "/docs/configuration.md");
  std::stringstream text;
  text << page.rdbuf();
  const std::string doc = text.str();
  const auto table = doc.substr(doc.find("## Environment variables"));
  std::set<std::string> documented;
  const std::regex row(R"(\n\| `(ABX_[A-Z_<>]+)`)");
  for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it)
    documented.insert((*it)[1]);
  ASSERT_GE(documented.size(), 20u);
  auto help = cli({"serve", "--help"});
  ASSERT_EQ(help.exit_code, 0);
  // A plugin's own variables are covered by ABX_<PLUGIN>_<KEY>.
  for (const auto& name : documented) {
    if (name.starts_with("ABX_AGENTS_") && name != "ABX_AGENTS_ADAPTER_MODULES") continue;
    if (name == "ABX_MAX_UPLOAD_SIZE") continue;
    EXPECT_THAT(help.out, HasSubstr(name)) << name << " is documented but not in serve --help";
  }
  EXPECT_THAT(cli({"check-config", "--help"}).out, HasSubstr("ABX_SERVER_TOKEN"));
}

TEST(Cli, CheckConfigBindsNothing) {
  // A port held here, as a running server holds its PTY port: check-config
  // with every plugin (terminal included) must not even try to bind it.
  std::string port;
  const int held = listenOnLoopback(port);
  ASSERT_GE(held, 0);
  auto manifest = writeManifest("plugins:\n  - name: terminal\n    file: abx_terminal.so\n");
  auto check = cli({"check-config", "--plugins", manifest, "--plugin-dir", pluginDir()},
                   {"ABX_PTY_PORT=" + port});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.err, ::testing::Not(HasSubstr("pty websocket")));
  ::close(held);
}

// A one-connection HTTP responder: 200 for /health, 503 for /ready (a
// server that is up but draining), so the probe's path is what decides.
TEST(Cli, HealthcheckReadyProbesReadiness) {
  std::string port;
  const int listener = listenOnLoopback(port);
  ASSERT_GE(listener, 0);
  std::vector<std::string> paths;
  std::thread responder([&] {
    for (int i = 0; i < 2; ++i) {
      const int fd = ::accept(listener, nullptr, nullptr);
      if (fd < 0) return;
      char buffer[1024];
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      const std::string head(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
      const std::string path = head.substr(4, head.find(' ', 4) - 4);
      paths.push_back(path);
      const std::string answer = path == "/health" ? "HTTP/1.1 200 OK\r\n\r\n"
                                                   : "HTTP/1.1 503 Service Unavailable\r\n\r\n";
      const ssize_t ignored = ::write(fd, answer.data(), answer.size());
      (void)ignored;
      ::close(fd);
    }
  });
  EXPECT_EQ(cli({"healthcheck", "--port", port}).exit_code, 0);
  auto ready = cli({"healthcheck", "--port", port, "--ready"});
  responder.join();
  ::close(listener);
  EXPECT_EQ(ready.exit_code, 1);
  EXPECT_EQ(ready.err, "healthcheck: HTTP 503\n");
  EXPECT_EQ(paths, (std::vector<std::string>{"/health", "/ready"}));
}

TEST(Cli, DrainTimeoutBoundsTheWaitForRequestsInFlight) {
  ServerOptions o;
  o.args = {"--drain-timeout", "2"};
  ServerProcess server(o);
  HttpResult answer;
  std::thread request([&] {
    answer = http(server.port(), "POST", "/shell", R"({"command":"sleep 30"})",
                  {{"Content-Type", "application/json"}});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(server.stop(), 0);
  const auto took = std::chrono::steady_clock::now() - t0;
  request.join();
  // It waited for the request about 2 s, then ended its command: not the
  // default 10 s, nor the command's 30.
  EXPECT_GE(took, std::chrono::milliseconds(1500));
  EXPECT_LT(took, std::chrono::milliseconds(8000));
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_THAT(answer.body, HasSubstr(R"("exit_code":-9)"));
  EXPECT_THAT(server.stderrText(), HasSubstr("killed 1 command(s) still running"));
  EXPECT_EQ(cli({"serve", "--drain-timeout", "0"}).err,
            "agent-sandbox-server: --drain-timeout must be an integer 1-3600, got '0'\n");
}

}  // namespace
}  // namespace abx::testing

namespace abx::testing {
namespace {

// An out-of-tree plugin's fragment: shipped beside its .so, merged into the
// `openapi` document, its mistakes listed by check-config.
TEST(Cli, OpenApiMergesTheFragmentBesideAPlugin) {
  const std::string dir = "/tmp/abx-cli-openapi-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(fixtureDir() + "/abx_test_echo.so", dir + "/abx_test_echo.so",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir + "/abx_test_echo.openapi.json") << R"({
    "abx_openapi_fragment": 1,
    "operations": {
      "echo_post": {"description": "Echoes the body",
        "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/EchoBody"}}}}},
      "no_such_id": {"description": "not an endpoint"}
    },
    "components": {"schemas": {"EchoBody": {"type": "object"}, "Error": {"type": "string"}}}
  })";
  auto manifest =
      writeManifest("plugins:\n  - name: echo\n    file: " + dir + "/abx_test_echo.so\n");

  auto doc = cli({"openapi", "--plugins", manifest});
  EXPECT_EQ(doc.exit_code, 0) << doc.err;
  EXPECT_THAT(doc.out, HasSubstr(R"("operationId":"echo_post","summary":)"));
  EXPECT_THAT(doc.out, HasSubstr(R"("description":"Echoes the body")"));
  EXPECT_THAT(doc.out, HasSubstr(R"("EchoBody":{"type":"object"})"));
  EXPECT_THAT(doc.out, HasSubstr(R"("operationId":"echo_item")"));  // no fragment: generated
  EXPECT_THAT(doc.out, HasSubstr(R"("operationId":"openapi")"));
  EXPECT_THAT(doc.out, ::testing::Not(HasSubstr("echo_optin_ping")));  // opt-in, not turned on
  EXPECT_THAT(doc.out, ::testing::Not(HasSubstr("no_such_id")));
  // A caller without echo:read does not see the scoped route.
  auto narrow = cli({"openapi", "--plugins", manifest, "--scopes", "other:read"});
  EXPECT_THAT(narrow.out, ::testing::Not(HasSubstr(R"("operationId":"echo_scoped")")));
  EXPECT_THAT(doc.out, HasSubstr(R"("operationId":"echo_scoped")"));

  auto check = cli({"check-config", "--plugins", manifest});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, HasSubstr("warning: openapi: " + dir +
                                   "/abx_test_echo.openapi.json: operation 'no_such_id' names no "
                                   "endpoint of"));
  EXPECT_THAT(check.out, HasSubstr("component schemas/Error is already defined"));
  std::filesystem::remove_all(dir);
  std::remove(manifest.c_str());
}

}  // namespace
}  // namespace abx::testing
