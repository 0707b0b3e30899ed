// Integration: the process plugin in the real server over real HTTP — every
// route and error body, /shell/stream's interleaving and disconnect
// handling, the 100-process cap, no zombies after 1000 short processes, and
// the policy's params (env_deny, allow/deny_commands, shells,
// allowed_signals, limits).
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/StreamSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "plugins/process/process_test_support.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kManifest =
    "plugins:\n  - name: process\n    file: abx_process.so\n    id: abx.process\n";

ServerOptions options(const std::string& policy = {}, std::map<std::string, std::string> env = {}) {
  ServerOptions o;
  o.manifest = kManifest;
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args = {"--policy", "{dir}/policy.yaml"};
  }
  o.env = std::move(env);
  return o;
}

Poco::JSON::Object::Ptr object(const std::string& body) {
  Poco::JSON::Parser parser;
  return parser.parse(body).extract<Poco::JSON::Object::Ptr>();
}

HttpResult post(const ServerProcess& server, const std::string& target, const std::string& body,
                const Headers& headers = {}) {
  return http(server.port(), "POST", target, body, headers);
}
HttpResult get(const ServerProcess& server, const std::string& target,
               const Headers& headers = {}) {
  return http(server.port(), "GET", target, "", headers);
}

std::string quoted(const std::string& command) {
  Poco::JSON::Object o;
  o.set("command", command);
  std::ostringstream out;
  o.stringify(out);
  return out.str();
}

// ---------------------------------------------------------------- POST /shell

TEST(ProcessShell, RunsWordsWithoutAShell) {
  ServerProcess server(options());
  auto r = post(server, "/shell", R"({"command":"sh -c 'echo out; echo err >&2; exit 3'"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json");
  EXPECT_EQ(r.body, R"({"stdout":"out\n","stderr":"err\n","exit_code":3,"truncated":false})");
  // Quotes group words; $, >, ; and globs are plain text without a shell.
  auto literal = post(server, "/shell", quoted(R"(printf '[%s]' "a b" $HOME > f; *)"));
  EXPECT_EQ(object(literal.body)->getValue<std::string>("stdout"), "[a b][$HOME][>][f;][*]");
  // The default working directory is the base dir; cwd is relative to it.
  std::filesystem::create_directory(server.dir() + "/sub");
  EXPECT_EQ(
      object(post(server, "/shell", R"({"command":"pwd"})").body)->getValue<std::string>("stdout"),
      server.dir() + "\n");
  EXPECT_EQ(object(post(server, "/shell", R"({"command":"pwd","cwd":"sub"})").body)
                ->getValue<std::string>("stdout"),
            server.dir() + "/sub\n");
  // An argv array is taken as is.
  EXPECT_EQ(object(post(server, "/shell", R"({"command":["echo","it's","$X"]})").body)
                ->getValue<std::string>("stdout"),
            "it's $X\n");
  // A signal death is -N.
  EXPECT_THAT(post(server, "/shell", R"({"command":"sh -c 'kill -9 $$'"})").body,
              HasSubstr(R"("exit_code":-9)"));
}

TEST(ProcessShell, ErrorBodies) {
  ServerProcess server(options());
  auto expect = [&](const std::string& body, int status, const std::string& answer) {
    auto r = post(server, "/shell", body);
    EXPECT_EQ(r.status, status) << body;
    EXPECT_EQ(r.body, answer) << body;
  };
  expect("{}", 400, R"({"error":"Missing required field 'command'","type":"ValueError"})");
  expect(
      R"({"command":7})", 400,
      R"({"error":"Field 'command' must be a string or an array of strings","type":"ValueError"})");
  expect(R"({"command":"  "})", 400, R"({"error":"Command is empty","type":"ValueError"})");
  expect(R"({"command":"echo 'unbalanced"})", 400,
         R"({"error":"Invalid command: No closing quotation","type":"ValueError"})");
  expect(R"({"command":"echo x\\"})", 400,
         R"({"error":"Invalid command: No escaped character","type":"ValueError"})");
  expect(R"({"command":"echo","timeout":"soon"})", 400,
         R"({"error":"Field 'timeout' must be a number of seconds","type":"ValueError"})");
  expect(R"({"command":"echo","timeout":0})", 400,
         R"({"error":"Field 'timeout' must be a positive number of seconds","type":"ValueError"})");
  expect(R"({"command":"no-such-program-xyz"})", 500,
         "{\"error\":\"No such file or directory: 'no-such-program-xyz' (searched PATH=" +
             std::string(getenv("PATH")) + ")\",\"type\":\"FileNotFoundError\"}");
  expect(
      R"({"command":"pwd","cwd":"/etc"})", 403,
      R"({"error":"Path not allowed: /etc","type":"PermissionError","code":"path_not_allowed"})");
  expect(R"({"command":"pwd","cwd":"missing"})", 400,
         R"({"error":"Working directory does not exist: missing","type":"FileNotFoundError"})");
  EXPECT_EQ(post(server, "/shell", "not json").status, 400);
}

TEST(ProcessShell, TimeoutIs500TimeoutErrorWithTheOutputSoFar) {
  ServerProcess server(options());
  const auto t0 = std::chrono::steady_clock::now();
  auto r = post(server, "/shell", R"({"command":"sh -c 'echo started; sleep 30'","timeout":0.5})");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(r.status, 500);
  auto body = object(r.body);
  EXPECT_EQ(body->getValue<std::string>("type"), "TimeoutError");
  EXPECT_EQ(body->getValue<std::string>("error"), "Command timed out after 0.5 seconds");
  EXPECT_EQ(body->getValue<std::string>("stdout"), "started\n");
}

TEST(ProcessShell, PolicyLimitsTimeoutAndOutput) {
  ServerProcess server(
      options("endpoints:\n  shell:\n    limits: {timeout_seconds: 0.5, max_output_bytes: 100}\n"));
  auto big = post(server, "/shell",
                  R"({"command":"sh -c 'head -c 5000 /dev/zero | tr \"\\0\" a; exit 5'"})");
  ASSERT_EQ(big.status, 200) << big.body;
  auto body = object(big.body);
  EXPECT_TRUE(body->getValue<bool>("truncated"));
  EXPECT_EQ(body->getValue<std::string>("stdout"), std::string(100, 'a'));
  EXPECT_EQ(body->getValue<int>("exit_code"), 5);  // the command ran to its end
  // The policy's 0.5 s wins over a longer body timeout.
  auto slow = post(server, "/shell", R"({"command":"sleep 5","timeout":60})");
  EXPECT_EQ(slow.status, 500);
  EXPECT_THAT(slow.body, HasSubstr(R"("error":"Command timed out after 0.5 seconds")"));
}

TEST(ProcessShell, DefaultOutputCapIsTenMebibytes) {
  ServerProcess server(options());
  auto r = post(server, "/shell", R"({"command":"head -c 11000000 /dev/zero"})");
  ASSERT_EQ(r.status, 200);
  auto body = object(r.body);
  EXPECT_TRUE(body->getValue<bool>("truncated"));
  EXPECT_EQ(body->getValue<std::string>("stdout").size(), 10u << 20);
  EXPECT_EQ(body->getValue<int>("exit_code"), 0);
}

// --------------------------------------------------------- POST /shell/stream

TEST(ProcessShellStream, InterleavesStdoutAndStderrInArrivalOrder) {
  ServerProcess server(options());
  SseClient sse(
      server.port(),
      R"({"command":"sh -c 'echo o1; sleep 0.1; echo e1 >&2; sleep 0.1; echo o2; sleep 0.1; echo e2 >&2'"})");
  EXPECT_EQ(sse.status(), 200);
  EXPECT_EQ(sse.contentType(), "text/event-stream");
  auto events = sse.all();
  ASSERT_EQ(events.size(), 5u);
  const std::pair<const char*, const char*> expected[] = {{"stdout", R"({"data":"o1"})"},
                                                          {"stderr", R"({"data":"e1"})"},
                                                          {"stdout", R"({"data":"o2"})"},
                                                          {"stderr", R"({"data":"e2"})"},
                                                          {"exit", R"({"exit_code":0})"}};
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].name, expected[i].first) << i;
    EXPECT_EQ(events[i].data, expected[i].second) << i;
  }
}

TEST(ProcessShellStream, LinesAreFlushedAsTheyCome) {
  ServerProcess server(options());
  SseClient sse(server.port(), R"({"command":"sh -c 'echo first; sleep 1; echo second'"})");
  const auto t0 = std::chrono::steady_clock::now();
  auto first = sse.next();
  const auto first_at = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(first);
  EXPECT_EQ(first->data, R"({"data":"first"})");
  EXPECT_LT(first_at, milliseconds(700));  // not held until the command ends
  auto second = sse.next();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->data, R"({"data":"second"})");
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(800));
  EXPECT_EQ(sse.next()->name, "exit");
}

TEST(ProcessShellStream, BadRequestsAreJsonBeforeAnyEvent) {
  ServerProcess server(options("endpoints:\n  shell_stream:\n    params: {deny_commands: [rm]}\n"));
  auto missing = post(server, "/shell/stream", "{}");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.headers["content-type"], "application/json");
  EXPECT_EQ(missing.body, R"({"error":"Missing required field 'command'","type":"ValueError"})");
  auto unbalanced = post(server, "/shell/stream", R"({"command":"echo \"x"})");
  EXPECT_EQ(unbalanced.status, 400);
  EXPECT_EQ(unbalanced.body,
            R"({"error":"Invalid command: No closing quotation","type":"ValueError"})");
  auto denied = post(server, "/shell/stream", R"({"command":"rm -rf x"})");
  EXPECT_EQ(denied.status, 403);
  EXPECT_THAT(denied.body, HasSubstr(R"("code":"command_not_allowed")"));
}

TEST(ProcessShellStream, SpawnFailureAndTimeoutAreErrorEvents) {
  ServerProcess server(options());
  {
    SseClient sse(server.port(), R"({"command":"no-such-program-xyz"})");
    auto events = sse.all();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].name, "error");
    EXPECT_THAT(events[0].data, HasSubstr(R"("type":"FileNotFoundError")"));
  }
  {
    SseClient sse(server.port(), R"({"command":"sh -c 'echo start; sleep 30'","timeout":0.5})");
    auto events = sse.all();
    ASSERT_EQ(events.size(), 3u);
    EXPECT_EQ(events[0].data, R"({"data":"start"})");
    EXPECT_EQ(events[1].name, "error");
    EXPECT_EQ(events[1].data,
              R"({"error":"Command timed out after 0.5 seconds","type":"TimeoutError"})");
    EXPECT_EQ(events[2].name, "exit");
    EXPECT_THAT(events[2].data, StartsWith(R"({"exit_code":-)"));
  }
}

TEST(ProcessShellStream, ClientDisconnectKillsTheProcessGroup) {
  ServerProcess server(options());
  Poco::Net::StreamSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(server.port())));
  socket.setReceiveTimeout(Poco::Timespan(10, 0));
  const std::string body = R"({"command":"sh -c 'echo $$; sleep 30; echo never'"})";
  const std::string request =
      "POST /shell/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  socket.sendBytes(request.data(), static_cast<int>(request.size()));
  std::string received;
  const std::string marker = "data: {\"data\":\"";
  std::size_t at = std::string::npos;
  char buf[4096];
  while ((at = received.find(marker)) == std::string::npos ||
         received.find('"', at + marker.size()) == std::string::npos) {
    int n = socket.receiveBytes(buf, sizeof buf);
    ASSERT_GT(n, 0) << received;
    received.append(buf, static_cast<std::size_t>(n));
  }
  const int pid = std::stoi(received.substr(at + marker.size()));
  ASSERT_GT(pid, 1);
  ASSERT_TRUE(procStat(pid).has_value());
  EXPECT_FALSE(groupMembers(pid).empty());
  socket.close();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(
      eventually([&] { return !procStat(pid) && groupMembers(pid).empty(); }, milliseconds(2000)))
      << "still there after 2 s";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(2000));
  EXPECT_TRUE(zombieChildren(server.pid()).empty());
}

// ---------------------------------------------------- background processes

int startedPid(const HttpResult& r) {
  EXPECT_EQ(r.status, 200) << r.body;
  return r.status == 200 ? object(r.body)->getValue<int>("pid") : -1;
}

TEST(ProcessBackground, StartListGetAndSignal) {
  ServerProcess server(options());
  auto start = post(server, "/process/start", R"({"command":"sleep 60"})");
  const int pid = startedPid(start);
  EXPECT_EQ(start.body, R"({"pid":)" + std::to_string(pid) + R"(,"command":"sleep 60"})");
  auto list = object(get(server, "/process/list").body)->getArray("processes");
  ASSERT_EQ(list->size(), 1u);
  auto entry = list->getObject(0);
  EXPECT_EQ(entry->getValue<int>("pid"), pid);
  EXPECT_EQ(entry->getValue<std::string>("command"), "sleep 60");
  EXPECT_EQ(entry->getValue<std::string>("state"), "running");
  EXPECT_TRUE(entry->isNull("exit_code"));
  const double started_at = entry->getValue<double>("started_at");
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(started_at, now, 10.0);

  auto one = get(server, "/process/" + std::to_string(pid));
  EXPECT_EQ(one.status, 200);
  EXPECT_THAT(one.body, HasSubstr(R"("state":"running")"));
  EXPECT_THAT(one.body, HasSubstr(R"("exit_code":null)"));

  auto sent = post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":15})");
  EXPECT_EQ(sent.status, 200);
  EXPECT_EQ(sent.body, R"({"pid":)" + std::to_string(pid) + R"(,"signal":15})");
  ASSERT_TRUE(eventually([&] {
    return get(server, "/process/" + std::to_string(pid)).body.find(R"("state":"exited")") !=
           std::string::npos;
  }));
  EXPECT_THAT(get(server, "/process/" + std::to_string(pid)).body, HasSubstr(R"("exit_code":-15)"));
  auto again = post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":9})");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body, R"({"error":"Process )" + std::to_string(pid) +
                            R"( has exited","type":"ConflictError","code":"process_exited"})");
}

TEST(ProcessBackground, ErrorBodies) {
  ServerProcess server(options());
  const int pid = startedPid(post(server, "/process/start", R"({"command":"sleep 60"})"));
  const std::string p = "/process/" + std::to_string(pid);
  auto expect = [&](const std::string& method, const std::string& target, const std::string& body,
                    int status, const std::string& answer) {
    auto r = http(server.port(), method, target, body);
    EXPECT_EQ(r.status, status) << method << " " << target << " " << body;
    EXPECT_EQ(r.body, answer) << method << " " << target << " " << body;
  };
  const std::string invalid =
      R"j({"error":"Invalid pid: 'abc' (must be an integer)","type":"ValueError"})j";
  expect("GET", "/process/abc", "", 400, invalid);
  expect("POST", "/process/abc/signal", R"({"signal":15})", 400, invalid);
  expect("GET", "/process/abc/output", "", 400, invalid);
  expect("POST", "/process/abc/stdin", R"({"data":"x"})", 400, invalid);
  const std::string unknown = R"({"error":"Process 999999 not found","type":"NotFoundError"})";
  expect("GET", "/process/999999", "", 404, unknown);
  expect("POST", "/process/999999/signal", R"({"signal":15})", 404, unknown);
  expect("GET", "/process/999999/output", "", 404, unknown);
  expect("POST", "/process/999999/stdin", R"({"data":"x"})", 404, unknown);
  expect("POST", p + "/signal", "{}", 400,
         R"({"error":"Missing required field 'signal'","type":"ValueError"})");
  expect("POST", p + "/signal", R"({"signal":"TERM"})", 400,
         R"({"error":"Field 'signal' must be an integer","type":"ValueError"})");
  for (int sig : {1, 3, 10, 19})
    expect("POST", p + "/signal", R"({"signal":)" + std::to_string(sig) + "}", 400,
           R"({"error":"Signal )" + std::to_string(sig) +
               R"( is not allowed; allowed: 2, 9, 15, 18, 20","type":"ValueError"})");
  expect("POST", "/process/1/signal", R"({"signal":9})", 403,
         R"({"error":"Sending signals to pid 1 is not allowed","type":"PermissionError"})");
  const std::string self = std::to_string(server.pid());
  expect("POST", "/process/" + self + "/signal", R"({"signal":9})", 403,
         R"({"error":"Sending signals to pid )" + self +
             R"( is not allowed","type":"PermissionError"})");
  expect("POST", "/process/start", "{}", 400,
         R"({"error":"Missing required field 'command'","type":"ValueError"})");
  expect("POST", "/process/start", R"({"command":"a 'b"})", 400,
         R"({"error":"Invalid command: No closing quotation","type":"ValueError"})");
  auto missing = post(server, "/process/start", R"({"command":"no-such-program-xyz"})");
  EXPECT_EQ(missing.status, 500);
  EXPECT_THAT(missing.body, HasSubstr(R"("type":"FileNotFoundError")"));
  expect(
      "GET", p + "/output?after=-1", "", 400,
      R"({"error":"Query parameter 'after' must be a non-negative integer","type":"ValueError"})");
  expect(
      "GET", p + "/output?after=x", "", 400,
      R"({"error":"Query parameter 'after' must be a non-negative integer","type":"ValueError"})");
  expect("GET", p + "/output?after=5", "", 400,
         R"j({"error":"Offset 5 is beyond the end of the output (0)","type":"ValueError"})j");
  expect("POST", p + "/stdin", "{}", 400,
         R"({"error":"Missing required field 'data'","type":"ValueError"})");
  expect("POST", p + "/stdin", R"({"data":5})", 400,
         R"({"error":"Field 'data' must be a string","type":"ValueError"})");
  expect("POST", p + "/stdin", R"({"data":"x","close":"yes"})", 400,
         R"({"error":"Field 'close' must be a boolean","type":"ValueError"})");
  EXPECT_EQ(post(server, p + "/signal", R"({"signal":9})").status, 200);
}

TEST(ProcessBackground, OutputIsReadIncrementallyFromARing) {
  ServerProcess server(
      options("endpoints:\n  process_start:\n    limits: {max_output_bytes: 16}\n"));
  const int pid = startedPid(post(
      server, "/process/start",
      R"({"command":["sh","-c","echo one; echo two >&2; sleep 0.3; echo three; echo 0123456789abcdef"]})"));
  const std::string out = "/process/" + std::to_string(pid) + "/output";
  HttpResult first;
  ASSERT_TRUE(eventually([&] {
    first = get(server, out);
    return first.body.find("two") != std::string::npos;
  }));
  EXPECT_EQ(
      first.body,
      R"({"output":"one\ntwo\n","next":8,"dropped":0,"state":"running","exit_code":null,"eof":false})");
  EXPECT_EQ(
      get(server, out + "?after=4").body,
      R"({"output":"two\n","next":8,"dropped":0,"state":"running","exit_code":null,"eof":false})");
  HttpResult last;
  ASSERT_TRUE(eventually([&] {
    last = get(server, out + "?after=8");
    return last.body.find(R"("eof":true)") != std::string::npos;
  }));
  // 31 bytes were written; the 16-byte ring holds 15..30, so 7 of the 23
  // bytes after offset 8 were lost.
  EXPECT_EQ(
      last.body,
      R"({"output":"123456789abcdef\n","next":31,"dropped":7,"state":"exited","exit_code":0,"eof":true})");
  EXPECT_EQ(get(server, out + "?after=31").body,
            R"({"output":"","next":31,"dropped":0,"state":"exited","exit_code":0,"eof":true})");
}

TEST(ProcessBackground, StdinIsWrittenAndClosed) {
  ServerProcess server(options());
  const int pid = startedPid(post(server, "/process/start", R"({"command":"cat"})"));
  const std::string p = "/process/" + std::to_string(pid);
  EXPECT_EQ(post(server, p + "/stdin", R"({"data":"hello\n"})").body, R"({"written":6})");
  ASSERT_TRUE(eventually([&] {
    return get(server, p + "/output").body.find(R"("output":"hello\n")") != std::string::npos;
  }));
  EXPECT_EQ(post(server, p + "/stdin", R"({"data":"bye\n","close":true})").body,
            R"({"written":4})");
  auto closed = post(server, p + "/stdin", R"({"data":"more"})");
  ASSERT_TRUE(eventually(
      [&] { return get(server, p).body.find(R"("state":"exited")") != std::string::npos; }));
  // Refused either because stdin was closed or because cat had already exited.
  EXPECT_EQ(closed.status, 409);
  EXPECT_THAT(closed.body, HasSubstr(R"("type":"ConflictError")"));
  EXPECT_THAT(get(server, p).body, HasSubstr(R"("exit_code":0)"));
  EXPECT_THAT(get(server, p + "/output").body, HasSubstr(R"("output":"hello\nbye\n")"));
  EXPECT_EQ(post(server, p + "/stdin", R"({"data":"x"})").body,
            R"({"error":"Process )" + std::to_string(pid) +
                R"( has exited","type":"ConflictError","code":"process_exited"})");
}

TEST(ProcessBackground, CapOfOneHundredRunningProcesses) {
  ServerProcess server(options());
  std::vector<int> pids;
  for (int i = 0; i < 100; ++i)
    pids.push_back(startedPid(post(server, "/process/start", R"({"command":"sleep 5"})")));
  auto refused = post(server, "/process/start", R"({"command":"sleep 5"})");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(refused.body,
            R"j({"error":"Too many background processes (limit 100)","type":"ResourceError"})j");
  for (int pid : pids)
    EXPECT_EQ(post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":9})").status,
              200);
  ASSERT_TRUE(eventually([&] {
    return get(server, "/process/list").body.find(R"("state":"running")") == std::string::npos;
  }));
  EXPECT_EQ(post(server, "/process/start", R"({"command":"true"})").status, 200);
  ASSERT_TRUE(eventually([&] {
    return get(server, "/process/list").body.find(R"("state":"running")") == std::string::npos;
  }));
  EXPECT_TRUE(zombieChildren(server.pid()).empty());
}

TEST(ProcessBackground, NoZombiesAfterAThousandShortProcesses) {
  ServerProcess server(options());
  int started = 0, refused = 0;
  while (started < 1000) {
    auto r = post(server, "/process/start", R"({"command":"true"})");
    if (r.status == 429) {
      ++refused;
      std::this_thread::sleep_for(milliseconds(5));
      continue;
    }
    ASSERT_EQ(r.status, 200) << r.body;
    ++started;
  }
  ASSERT_TRUE(eventually(
      [&] {
        return get(server, "/process/list").body.find(R"("state":"running")") == std::string::npos;
      },
      milliseconds(10000)));
  auto list = object(get(server, "/process/list").body)->getArray("processes");
  EXPECT_EQ(list->size(), 100u);  // the newest exited records are kept
  EXPECT_EQ(list->getObject(99)->getValue<int>("exit_code"), 0);
  EXPECT_TRUE(zombieChildren(server.pid()).empty());
  RecordProperty("refused_429", refused);
}

TEST(ProcessBackground, StopKillsBackgroundProcesses) {
  std::optional<ServerProcess> server(std::in_place, options());
  const int pid = startedPid(post(*server, "/process/start", R"({"command":"sleep 60"})"));
  EXPECT_EQ(server->stop(), 0);
  EXPECT_TRUE(eventually([&] { return !procStat(pid); }, milliseconds(3000)));
}

// ------------------------------------------------------------------- policy

TEST(ProcessPolicy, EnvDenyAndCommandRules) {
  ServerProcess server(
      options("endpoints:\n"
              "  shell:\n"
              "    params: {env_deny: [\"SECRETISH_*\"], allow_commands: [env, echo, sh, bash, "
              "\"/usr/bin/i?\"],"
              " deny_commands: [curl], shells: [sh]}\n"
              "  process_start:\n"
              "    params: {allow_commands: [sleep]}\n"
              "  process_signal:\n"
              "    params: {allowed_signals: [15]}\n",
              {{"SECRETISH_VALUE", "hidden"}, {"VISIBLE_VALUE", "shown"}}));
  auto env =
      object(post(server, "/shell", R"({"command":"env"})").body)->getValue<std::string>("stdout");
  EXPECT_THAT(env, HasSubstr("VISIBLE_VALUE=shown"));
  EXPECT_THAT(env, Not(HasSubstr("SECRETISH_VALUE")));
  EXPECT_EQ(post(server, "/shell", R"({"command":"echo ok"})").status, 200);
  EXPECT_EQ(post(server, "/shell", R"({"command":"/usr/bin/id"})").status, 200);
  auto refuse = [&](const std::string& target, const std::string& body,
                    const std::string& message) {
    auto r = post(server, target, body);
    EXPECT_EQ(r.status, 403) << body;
    EXPECT_EQ(r.body, R"({"error":")" + message +
                          R"(","type":"PermissionError","code":"command_not_allowed"})")
        << body;
  };
  refuse("/shell", R"({"command":"ls"})",
         "Command 'ls' is not allowed by policy (params.allow_commands)");
  refuse("/shell", R"({"command":"/usr/bin/curl x"})",
         "Command '/usr/bin/curl' is denied by policy (params.deny_commands)");
  refuse("/shell", R"({"command":"/usr/bin/bash -c id"})",
         "Shell '/usr/bin/bash' is not allowed by policy (params.shells)");
  refuse("/process/start", R"({"command":"cat"})",
         "Command 'cat' is not allowed by policy (params.allow_commands)");
  const int pid = startedPid(post(server, "/process/start", R"({"command":"sleep 30"})"));
  auto nine = post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":9})");
  EXPECT_EQ(nine.status, 400);
  EXPECT_THAT(nine.body, HasSubstr("Signal 9 is not allowed; allowed: 15"));
  EXPECT_EQ(post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":15})").status,
            200);
}

TEST(ProcessPolicy, ScopesFollowTheEndpointTable) {
  ServerProcess server(
      options("auth:\n  tokens:\n"
              "    - {id: runner, token_env: RUN_AUTH, scopes: [\"process:run\"]}\n"
              "    - {id: manager, token_env: MANAGE_AUTH, scopes: [\"process:manage\"]}\n"
              "    - {id: ops, token_env: OPS_AUTH, scopes: [\"process:manage\", \"admin\"]}\n",
              {{"RUN_AUTH", "run-auth-123"},
               {"MANAGE_AUTH", "manage-auth-123"},
               {"OPS_AUTH", "ops-auth-123"}}));
  const Headers runner = {{"X-Access-Token", "run-auth-123"}};
  const Headers manager = {{"X-Access-Token", "manage-auth-123"}};
  const Headers ops = {{"X-Access-Token", "ops-auth-123"}};
  EXPECT_EQ(post(server, "/shell", R"({"command":"true"})").status, 401);
  EXPECT_EQ(post(server, "/shell", R"({"command":"true"})", runner).status, 200);
  auto denied = post(server, "/shell", R"({"command":"true"})", manager);
  EXPECT_EQ(denied.status, 403);
  EXPECT_THAT(denied.body, HasSubstr(R"("scope":"process:run")"));
  const int pid = startedPid(post(server, "/process/start", R"({"command":"sleep 30"})", runner));
  EXPECT_EQ(get(server, "/process/list", runner).status, 403);
  EXPECT_EQ(get(server, "/process/list", manager).status, 200);
  // The runner's process is not the manager's (404); `admin` reaches it.
  EXPECT_EQ(post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":9})", manager)
                .status,
            404);
  EXPECT_EQ(
      post(server, "/process/" + std::to_string(pid) + "/signal", R"({"signal":9})", ops).status,
      200);
}

}  // namespace
}  // namespace abx::testing
