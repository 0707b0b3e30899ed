// Integration: the real agent-sandbox-server binary on an ephemeral port,
// driven over HTTP — pipeline order, auth, opt-in groups, SSE, keep-alive,
// plugin loading failures, shutdown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;

std::string echoManifest(const std::string& extra = "") {
  return "plugins:\n"
         "  - name: commands\n"
         "    file: abx_commands.so\n"
         "  - name: echo\n"
         "    file: " +
         fixtureDir() + "/abx_test_echo.so\n" + extra;
}

TEST(Server, RequestIdsAreEchoedAndAudited) {
  ServerOptions o;
  o.manifest = echoManifest();
  o.files["policy.yaml"] = "audit_log: {dir}/audit.jsonl\nendpoints:\n  echo_post: {audit: all}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  ServerProcess server(o);
  // The caller's id is kept; a missing or insane one is replaced by a new one.
  auto given = http(server.port(), "POST", "/echo", "{}", {{"X-Request-Id", "trace-42/a:b"}});
  EXPECT_EQ(given.headers["x-request-id"], "trace-42/a:b");
  auto made = http(server.port(), "POST", "/echo", "{}");
  const std::regex generated("[0-9a-f]{32}");
  EXPECT_TRUE(std::regex_match(made.headers["x-request-id"], generated))
      << made.headers["x-request-id"];
  auto insane = http(server.port(), "POST", "/echo", "{}", {{"X-Request-Id", "a b\"c"}});
  EXPECT_TRUE(std::regex_match(insane.headers["x-request-id"], generated));
  EXPECT_NE(insane.headers["x-request-id"], made.headers["x-request-id"]);
  // Every answer carries one, errors and core routes too.
  EXPECT_FALSE(http(server.port(), "GET", "/nowhere").headers["x-request-id"].empty());
  EXPECT_FALSE(http(server.port(), "GET", "/health").headers["x-request-id"].empty());
  server.stop();
  std::ifstream in(server.dir() + "/audit.jsonl");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr(R"("request_id":"trace-42/a:b","identity":)"));
  EXPECT_THAT(text.str(), HasSubstr(R"("request_id":")" + made.headers["x-request-id"] + "\""));
}

TEST(Server, HealthIsOpenAndCapabilitiesNeedTheToken) {
  ServerProcess server({echoManifest(), {}, {{"ABX_SERVER_TOKEN", "s3cret-token"}}});
  auto health = http(server.port(), "GET", "/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  EXPECT_EQ(health.headers["content-type"], "application/json");
  EXPECT_EQ(http(server.port(), "GET", "/ready").status, 200);

  auto denied = http(server.port(), "GET", "/capabilities");
  EXPECT_EQ(denied.status, 401);
  EXPECT_EQ(denied.body, R"({"error":"unauthorized","type":"AuthError"})");
  EXPECT_EQ(http(server.port(), "GET", "/capabilities", "", {{"X-Access-Token", "wrong"}}).status,
            401);
  auto ok = http(server.port(), "GET", "/capabilities", "", {{"X-Access-Token", "s3cret-token"}});
  EXPECT_EQ(ok.status, 200);
  EXPECT_THAT(ok.body, HasSubstr(R"("identity":{"id":"legacy","scopes":["*"]})"));
  auto bearer =
      http(server.port(), "GET", "/capabilities", "", {{"Authorization", "Bearer s3cret-token"}});
  EXPECT_EQ(bearer.status, 200);
}

TEST(Server, TwoDifferentAccessTokensAreAmbiguous) {
  ServerProcess server({echoManifest(), {}, {{"ABX_SERVER_TOKEN", "s3cret-token"}}});
  auto raw =
      rawHttp(server.port(),
              "GET /capabilities HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Access-Token: s3cret-token\r\n"
              "X-Access-Token: other\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(raw, HasSubstr("HTTP/1.1 400"));
  EXPECT_THAT(raw, HasSubstr(R"("code":"ambiguous_credentials")"));
}

TEST(Server, TheTokenNeverAppearsInLogs) {
  ServerProcess server({echoManifest(), {}, {{"ABX_SERVER_TOKEN", "s3cret-token"}}});
  http(server.port(), "GET", "/capabilities", "", {{"X-Access-Token", "s3cret-token-nope"}});
  server.stop();
  EXPECT_THAT(server.stderrText(), ::testing::Not(HasSubstr("s3cret-token")));
}

TEST(Server, OptInGroupIsDisabledUntilTheEnvironmentTurnsItOn) {
  {
    ServerProcess server({echoManifest()});
    auto r = http(server.port(), "GET", "/echo-optin/ping");
    EXPECT_EQ(r.status, 404);
    EXPECT_EQ(r.body, R"({"error":"Endpoint 'echo_optin_ping' is disabled","type":"PolicyError",)"
                      R"("code":"endpoint_disabled","endpoint":"echo_optin_ping",)"
                      R"("rule":"default:opt-in:echo_optin"})");
    EXPECT_EQ(http(server.port(), "POST", "/echo", "{}").status, 200);
  }
  ServerProcess on({echoManifest(), {}, {{"ABX_SERVER_ENABLED_GROUPS", "echo_optin"}}});
  auto r = http(on.port(), "GET", "/echo-optin/ping");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"pong":true})");
}

TEST(Server, UnknownEnabledGroupStopsStartupWithAHint) {
  ServerProcess server({echoManifest(), {}, {{"ABX_SERVER_ENABLED_GROUPS", "echo_opt"}}, false});
  auto code = server.waitExit(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_THAT(server.stderrText(),
              HasSubstr("unknown group 'echo_opt' (did you mean 'echo_optin'?)"));
}

TEST(Server, PipelineRejectionsOverHttp) {
  ServerProcess server({echoManifest()});
  auto dup = http(server.port(), "POST", "/echo?a=1&a=2", "{}");
  EXPECT_EQ(dup.status, 400);
  EXPECT_THAT(dup.body, HasSubstr(R"("code":"duplicate_parameter")"));
  auto arrays = http(server.port(), "POST", "/echo?x=%20y&b[]=1&b[]=2", "{}");
  EXPECT_EQ(arrays.status, 200);
  EXPECT_THAT(arrays.body, HasSubstr(R"("query":{"x":" y"})"));

  auto big = http(server.port(), "POST", "/echo", std::string(2000, ' '));
  EXPECT_EQ(big.status, 413);
  EXPECT_THAT(big.body, HasSubstr(R"("code":"request_too_large")"));
  EXPECT_THAT(big.body, HasSubstr(R"("limit":"max_request_bytes")"));

  auto bad = http(server.port(), "POST", "/echo", "{nope");
  EXPECT_EQ(bad.status, 400);
  EXPECT_THAT(bad.body, HasSubstr(R"("code":"invalid_json")"));

  auto te = rawHttp(server.port(),
                    "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                    "Content-Type: application/json\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  EXPECT_THAT(te, HasSubstr("HTTP/1.1 400"));
  EXPECT_THAT(te, HasSubstr("transfer_encoding_unsupported"));

  auto thrown = http(server.port(), "GET", "/echo/throw");
  EXPECT_EQ(thrown.status, 500);
  EXPECT_THAT(thrown.body, HasSubstr("kaboom"));

  auto missing = http(server.port(), "GET", "/echo/nothing/");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":"Not found: /echo/nothing","type":"ValueError"})");

  auto item = http(server.port(), "GET", "/echo/items/a%20b/");
  EXPECT_EQ(item.body, R"({"id":"a b"})");
  // Registered after the template, so the template answers (registration order).
  EXPECT_EQ(http(server.port(), "GET", "/echo/items/special").body, R"({"id":"special"})");

  auto v1 = http(server.port(), "GET", "/v1/nothing");
  EXPECT_EQ(v1.status, 404);
  EXPECT_EQ(v1.body,
            R"({"error":{"message":"Not found: /v1/nothing","type":"invalid_request_error",)"
            R"("param":null,"code":null}})");
}

TEST(Server, OversizeBodyGets413WhileTheClientIsStillSending) {
  ServerProcess server({echoManifest()});
  // 2 MiB against a 1 KiB limit: drained, answered, and the connection kept.
  std::string big(2u << 20, ' ');
  auto raw = rawHttp(server.port(),
                     "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: " +
                         std::to_string(big.size()) + "\r\n\r\n" + big +
                         "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(raw, HasSubstr("HTTP/1.1 413"));
  EXPECT_THAT(raw, HasSubstr(R"({"status":"ok"})"));
}

TEST(Server, KeepAliveSurvivesARejectedBody) {
  ServerProcess server({echoManifest(), {}, {{"ABX_SERVER_TOKEN", "s3cret-token"}}});
  // First request is rejected before its body is read; the second must still
  // be parsed as a request on the same connection.
  auto raw = rawHttp(server.port(),
                     "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     "Content-Length: 7\r\n\r\n{\"a\":1}"
                     "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(raw, HasSubstr("HTTP/1.1 401"));
  EXPECT_THAT(raw, HasSubstr(R"({"status":"ok"})"));
}

TEST(Server, StreamingRouteSendsServerSentEvents) {
  ServerProcess server({echoManifest()});
  auto r = http(server.port(), "POST", "/echo/stream", R"({"count":2})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.headers["content-type"], "text/event-stream");
  EXPECT_EQ(r.body,
            "event: progress\ndata: {\"step\":1}\n\n"
            "event: progress\ndata: {\"step\":2}\n\n"
            "event: done\ndata: {\"total\":2}\n\n");
  auto rejected = http(server.port(), "POST", "/echo/stream", R"({"count":0})");
  EXPECT_EQ(rejected.status, 400);
  EXPECT_EQ(rejected.headers["content-type"], "application/json");
}

TEST(Server, RawBodyRoutesReadTheBodyAsItArrives) {
  ServerProcess server({echoManifest()});
  std::string body(3u << 20, '\x01');
  auto r = http(server.port(), "POST", "/echo/raw", body,
                {{"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"bytes":3145728,"sum":3145728,"declared":3145728})");
  // Not JSON, and not parsed: a raw route takes any bytes.
  EXPECT_EQ(http(server.port(), "POST", "/echo/raw", "{nope").status, 200);
}

TEST(Server, StreamedResponseBodiesSizedChunkedAndAborted) {
  ServerProcess server({echoManifest()});
  auto expected = [](std::size_t n) {
    std::string s(n, 'a');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    return s;
  };
  auto sized = http(server.port(), "GET", "/echo/bytes?n=100000&sized=1");
  EXPECT_EQ(sized.headers["content-length"], "100000");
  EXPECT_EQ(sized.body, expected(100000));
  auto chunked = http(server.port(), "GET", "/echo/bytes?n=70000");
  EXPECT_EQ(chunked.headers["transfer-encoding"], "chunked");
  EXPECT_EQ(chunked.body, expected(70000));
  // A producer that fails part-way closes the connection: the client sees a
  // short body against the declared length, never a complete-looking one.
  auto raw = rawHttp(server.port(),
                     "GET /echo/bytes?n=100000&sized=1&fail=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_THAT(raw, HasSubstr("Content-Length: 100000"));
  EXPECT_LT(raw.size(), 100000u);
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
}

TEST(Server, CompiledCommandsFromAnotherPluginRunThroughTheCommandsGroup) {
  ServerProcess server({echoManifest()});
  auto r = http(server.port(), "POST", "/commands/add", R"({"a":"40","b":2})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"result":42})");
  auto list = http(server.port(), "GET", "/commands");
  EXPECT_THAT(list.body, HasSubstr(R"("name":"add")"));
}

TEST(Server, RequiredPluginFailureExitsTwoWithOneLine) {
  ServerProcess server(
      {"plugins:\n  - name: broken\n    file: " + fixtureDir() + "/start_fails.so\n",
       {},
       {},
       false});
  auto code = server.waitExit(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_THAT(server.stderrText(),
              HasSubstr(fixtureDir() + "/start_fails.so: start: backend unavailable on purpose"));
}

TEST(Server, OptionalPluginFailureLeavesADisabledRecord) {
  ServerProcess server(
      {echoManifest("  - name: broken\n    file: " + fixtureDir() +
                    "/start_fails.so\n    required: false\n"
                    "  - name: missing\n    file: nowhere.so\n    required: false\n"
                    "  - name: off\n    file: nowhere.so\n    enabled: false\n")});
  // The failed plugin registered a route before failing: it must be gone.
  EXPECT_EQ(http(server.port(), "GET", "/fixture/start_fails").status, 404);
  auto caps = http(server.port(), "GET", "/capabilities");
  EXPECT_THAT(caps.body, HasSubstr(R"("name":"broken")"));
  EXPECT_THAT(caps.body, HasSubstr(R"("state":"failed")"));
  EXPECT_THAT(caps.body,
              HasSubstr(R"("error":{"stage":"start","message":"backend unavailable on purpose"})"));
  EXPECT_THAT(caps.body, HasSubstr(R"("error":{"stage":"open","message":"no such file"})"));
  EXPECT_THAT(caps.body, HasSubstr(R"("state":"disabled")"));
}

TEST(Server, AdapterModulesFromTheEnvironmentAreRequired) {
  ServerProcess ok(
      {echoManifest(), {}, {{"ABX_AGENTS_ADAPTER_MODULES", fixtureDir() + "/good.so"}}});
  EXPECT_EQ(http(ok.port(), "GET", "/fixture/good").body, R"({"fixture":"good"})");

  ServerProcess bad({echoManifest(),
                     {},
                     {{"ABX_AGENTS_ADAPTER_MODULES", fixtureDir() + "/abi_major_mismatch.so"}},
                     false});
  auto code = bad.waitExit(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_THAT(bad.stderrText(), HasSubstr("abi_major_mismatch.so: abi: plugin ABI 3.0"));
}

TEST(Server, RefusesNonLoopbackWithoutToken) {
  ServerProcess server({echoManifest(), {"--host", "0.0.0.0"}, {}, false});
  auto code = server.waitExit(std::chrono::seconds(10));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  EXPECT_THAT(server.stderrText(), HasSubstr("--insecure-no-auth"));
}

// Reads from @p fd into @p into until it holds @p text or the peer closes.
bool readUntil(int fd, std::string& into, const std::string& text) {
  char buffer[4096];
  while (into.find(text) == std::string::npos) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    into.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

TEST(Server, SigtermLetsInFlightStreamsEndAndExitsZero) {
  ServerProcess server({echoManifest()});
  const std::string body = R"({"count":50,"delay_ms":20})";
  const int fd = connectLoopback(server.port());
  ASSERT_GE(fd, 0);
  const std::string request =
      "POST /echo/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "Content-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  // SIGTERM once the stream is under way (a fixed wait raced a busy machine).
  std::string received;
  ASSERT_TRUE(readUntil(fd, received, "event: progress")) << received;
  EXPECT_EQ(server.stop(std::chrono::seconds(10)), 0);
  readUntil(fd, received, "\r\n0\r\n\r\n");  // to the last chunk, or the close
  ::close(fd);
  EXPECT_THAT(received, ::testing::StartsWith("HTTP/1.1 200 "));
  EXPECT_THAT(received, ::testing::Not(HasSubstr("event: done\ndata: {\"total\":50}")));
}

}  // namespace
}  // namespace abx::testing
