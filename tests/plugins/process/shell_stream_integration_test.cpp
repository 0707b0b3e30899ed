// Integration: POST /shell/stream holds no thread while its command runs —
// many more open streams than HTTP workers, each served to the end while
// other routes still answer and the server's thread count stays flat; a
// client that does not read holds the command on its writes in bounded
// memory without slowing other streams; and the rules of a stream's end
// that the plugin's one reading thread keeps (stragglers, output closed
// early, the policy cap, a timeout on a command that ignores SIGINT).
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugins/process/process_test_support.h"
#include "support/build_kind.h"
#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const std::string kManifest =
    "plugins:\n  - name: process\n    file: abx_process.so\n    id: abx.process\n";
const std::string kToken = "stream-load-token";

ServerOptions options(std::map<std::string, std::string> env = {}, const std::string& policy = {}) {
  ServerOptions o;
  o.manifest = kManifest;
  o.env = std::move(env);
  if (!policy.empty()) {
    o.files["policy.yaml"] = policy;
    o.args = {"--policy", "{dir}/policy.yaml"};
  }
  return o;
}

/** The server's threads, and how many of them are named @p name. */
struct Threads {
  std::size_t total = 0;
  std::size_t named = 0;
};
Threads threadCount(pid_t pid, const std::string& name = "abx-shell-pump") {
  Threads t;
  for (const auto& task :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    ++t.total;
    std::ifstream in(task.path() / "comm");
    std::string comm;
    std::getline(in, comm);
    if (comm == name) ++t.named;
  }
  return t;
}

/** A field of /proc/<pid>/status ("VmRSS") or /proc/<pid>/io ("wchar"), in its unit. */
long procField(pid_t pid, const std::string& file, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
  return -1;
}

std::string streamBody(const std::string& command) { return R"({"command":")" + command + R"("})"; }

/** A /shell/stream request on a raw socket that reads only what it is asked to. */
class RawStream {
 public:
  RawStream(int port, const std::string& body)
      : socket_(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port))) {
    socket_.setReceiveTimeout(Poco::Timespan(10, 0));
    const std::string request =
        "POST /shell/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
        "application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    socket_.sendBytes(request.data(), static_cast<int>(request.size()));
  }
  /** Reads until the first stdout line is complete: the pid the command printed. */
  int firstLinePid() {
    const std::string marker = "data: {\"data\":\"";
    std::size_t at;
    while ((at = received_.find(marker)) == std::string::npos ||
           received_.find('"', at + marker.size()) == std::string::npos)
      if (read() <= 0) return -1;
    return std::stoi(received_.substr(at + marker.size()));
  }
  /** Reads about @p bytes more. */
  std::size_t drain(std::size_t bytes) {
    std::size_t got = 0;
    while (got < bytes) {
      const int n = read();
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
      received_.clear();
    }
    return got;
  }
  void close() { socket_.close(); }

 private:
  int read() {
    char buf[65536];
    const int n = socket_.receiveBytes(buf, sizeof buf);
    if (n > 0) received_.append(buf, static_cast<std::size_t>(n));
    return n;
  }
  Poco::Net::StreamSocket socket_;
  std::string received_;
};

// ------------------------------------------------------- threads and load

TEST(ProcessShellStreamLoad, StreamsBeyondTheWorkerPoolHoldNoThreads) {
  constexpr int kWorkers = 4;
  constexpr int kStreams = 48;
  ServerProcess server(
      options({{"ABX_SERVER_THREADS", std::to_string(kWorkers)}, {"ABX_SERVER_TOKEN", kToken}}));
  const Headers auth = {{"Authorization", "Bearer " + kToken}};
  ASSERT_EQ(http(server.port(), "GET", "/process/list", "", auth).status, 200);
  const Threads before = threadCount(server.pid());
  EXPECT_EQ(before.named, 0u);  // started with the first stream

  const auto t0 = Clock::now();
  std::vector<std::unique_ptr<SseClient>> streams;
  for (int i = 0; i < kStreams; ++i) {
    streams.push_back(
        std::make_unique<SseClient>(server.port(), streamBody("sh -c 'sleep 2; echo done'"), auth));
    ASSERT_EQ(streams.back()->status(), 200) << i;
  }
  // Every stream started before the first command could end: none waited for a worker.
  EXPECT_LT(Clock::now() - t0, milliseconds(2000));

  const Threads during = threadCount(server.pid());
  const auto h0 = Clock::now();
  EXPECT_EQ(http(server.port(), "GET", "/health").status, 200);
  const auto health_took = Clock::now() - h0;
  const auto l0 = Clock::now();
  const auto list = http(server.port(), "GET", "/process/list", "", auth);
  const auto list_took = Clock::now() - l0;
  EXPECT_EQ(list.status, 200) << list.body;
  EXPECT_LT(health_took, milliseconds(1000));
  EXPECT_LT(list_took, milliseconds(1000));
  // The pool grows to its size on demand, plus the plugin's one reading
  // thread: never a thread per stream.
  EXPECT_EQ(during.named, 1u);
  EXPECT_LE(during.total, before.total + kWorkers + 1);
  EXPECT_LT(during.total, static_cast<std::size_t>(kStreams) / 4);

  for (int i = 0; i < kStreams; ++i) {
    const auto events = streams[static_cast<std::size_t>(i)]->all();
    ASSERT_EQ(events.size(), 2u) << i;
    EXPECT_EQ(events[0].name, "stdout");
    EXPECT_EQ(events[0].data, R"({"data":"done"})");
    EXPECT_EQ(events[1].name, "exit");
    EXPECT_EQ(events[1].data, R"({"exit_code":0})");
  }
  const Threads after = threadCount(server.pid());
  EXPECT_LE(after.total, before.total + kWorkers + 1);
  std::cout << "[ measured ] server threads with " << kWorkers << " workers: " << before.total
            << " before, " << during.total << " with " << kStreams << " open /shell/stream, "
            << after.total << " after\n";
  EXPECT_TRUE(eventually([&] { return zombieChildren(server.pid()).empty(); }));
}

TEST(ProcessShellStreamLoad, AClientThatDoesNotReadHoldsTheCommandInBoundedMemory) {
  ServerProcess server(options());
  const long rss_before = procField(server.pid(), "status", "VmRSS");
  RawStream slow(server.port(),
                 streamBody("sh -c 'echo $$; exec yes 0123456789012345678901234567890123456789'"));
  const int pid = slow.firstLinePid();
  ASSERT_GT(pid, 1);
  // The flood stops on a write once the socket, the stream's queue and the pipe are full.
  long wchar = -1;
  ASSERT_TRUE(eventually(
      [&] {
        const long before = procField(pid, "io", "wchar");
        std::this_thread::sleep_for(milliseconds(300));
        wchar = procField(pid, "io", "wchar");
        return before >= 0 && before == wchar;
      },
      milliseconds(10000)))
      << "the command kept writing";
  EXPECT_LT(wchar, 64L << 20) << "bytes written before the command was held";

  // Another stream is served meanwhile, in its own time.
  const auto t0 = Clock::now();
  SseClient other(server.port(), streamBody("sh -c 'echo one; sleep 0.2; echo two'"));
  const auto events = other.all();
  EXPECT_LT(Clock::now() - t0, milliseconds(3000));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, R"({"data":"one"})");
  EXPECT_EQ(events[1].data, R"({"data":"two"})");
  EXPECT_EQ(events[2].name, "exit");

  std::this_thread::sleep_for(milliseconds(500));
  EXPECT_EQ(procField(pid, "io", "wchar"), wchar) << "still held";
  const long rss_held = procField(server.pid(), "status", "VmRSS");
  if (abx::testing::kRssIsMeaningful) {
    EXPECT_LT(rss_held - rss_before, 32L * 1024) << "KiB of RSS grown for one held stream";
  }

  // Reading again lets the command go on.
  EXPECT_GE(slow.drain(16u << 20), 16u << 20);
  EXPECT_GT(procField(pid, "io", "wchar"), wchar);
  std::cout << "[ measured ] held flood: " << wchar << " bytes written, server RSS " << rss_before
            << " KiB before, " << rss_held << " KiB while held\n";

  slow.close();
  EXPECT_TRUE(eventually([&] { return !procStat(pid) && groupMembers(pid).empty(); }))
      << "the flood's group outlived its client";
}

// ------------------------------------------------------ how a stream ends

TEST(ProcessShellStreamEnd, AStragglerHoldingThePipesIsKilledAfterTheLeader) {
  ServerProcess server(options());
  const auto t0 = Clock::now();
  SseClient sse(server.port(), streamBody("sh -c 'sleep 30 & echo $!; echo hi'"));
  const auto events = sse.all();
  EXPECT_LT(Clock::now() - t0, milliseconds(5000));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].data, R"({"data":"hi"})");
  EXPECT_EQ(events[2].name, "exit");
  EXPECT_EQ(events[2].data, R"({"exit_code":0})");
  const int straggler = std::stoi(events[0].data.substr(9));
  EXPECT_TRUE(
      eventually([&] { return !procStat(straggler) || procStat(straggler)->state == 'Z'; }));
}

TEST(ProcessShellStreamEnd, OutputClosedEarlyWaitsForTheLeader) {
  ServerProcess server(options());
  const auto t0 = Clock::now();
  SseClient sse(server.port(), streamBody("sh -c 'echo early; exec >&- 2>&-; sleep 0.5; exit 4'"));
  const auto events = sse.all();
  EXPECT_GE(Clock::now() - t0, milliseconds(450));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, R"({"data":"early"})");
  EXPECT_EQ(events[1].data, R"({"exit_code":4})");
}

TEST(ProcessShellStreamEnd, ThePolicyCapDropsLaterLines) {
  ServerProcess server(
      options({}, "endpoints:\n  shell_stream:\n    limits: {max_output_bytes: 10}\n"));
  SseClient sse(server.port(), streamBody("sh -c 'echo 12345; echo 6789; echo toolong; echo x'"));
  const auto events = sse.all();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, R"({"data":"12345"})");
  EXPECT_EQ(events[1].data, R"({"data":"6789"})");
  EXPECT_EQ(events[2].data, R"({"exit_code":0,"truncated":true})");
}

TEST(ProcessShellStreamEnd, ATimeoutClimbsTheLadderPastIgnoredSignals) {
  ServerProcess server(options());
  const auto t0 = Clock::now();
  SseClient sse(server.port(),
                R"({"command":"sh -c 'trap \"\" INT TERM; echo armed; sleep 30'","timeout":0.3})");
  const auto events = sse.all();
  const auto took = Clock::now() - t0;
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, R"({"data":"armed"})");
  EXPECT_EQ(events[1].data,
            R"({"error":"Command timed out after 0.3 seconds","type":"TimeoutError"})");
  // SIGINT and SIGTERM ignored by the shell: SIGKILL after 1 s + 1 s.
  EXPECT_THAT(events[2].data, StartsWith(R"({"exit_code":-9)"));
  EXPECT_GE(took, milliseconds(2200));
  EXPECT_LT(took, milliseconds(6000));
}

TEST(ProcessShellStreamEnd, MaxConcurrencyCountsACommandUntilItEnds) {
  ServerProcess server(
      options({}, "endpoints:\n  shell_stream:\n    limits: {max_concurrency: 1}\n"));
  SseClient first(server.port(), streamBody("sh -c 'echo go; sleep 1'"));
  const auto go = first.next();
  ASSERT_TRUE(go);
  EXPECT_EQ(go->data, R"({"data":"go"})");
  // The first handler returned long ago; its command still runs.
  const auto second = http(server.port(), "POST", "/shell/stream", streamBody("echo no"));
  EXPECT_EQ(second.status, 429);
  EXPECT_EQ(second.body,
            R"({"error":"Too many concurrent requests to endpoint 'shell_stream': at most 1",)"
            R"("type":"ResourceError","code":"concurrency_limited","endpoint":"shell_stream",)"
            R"("limit":"max_concurrency","retry_after":1})");
  ASSERT_EQ(second.headers.count("retry-after"), 1u);
  EXPECT_EQ(second.headers.at("retry-after"), "1");
  const auto rest = first.all();
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.back().name, "exit");
  EXPECT_TRUE(eventually([&] {
    return http(server.port(), "POST", "/shell/stream", streamBody("echo yes")).status == 200;
  }));
}

TEST(ProcessShellStreamEnd, AServerThatStopsEndsItsStreamsAndTheirCommands) {
  ServerProcess server(options());
  RawStream stream(server.port(), streamBody("sh -c 'echo $$; sleep 30'"));
  const int pid = stream.firstLinePid();
  ASSERT_GT(pid, 1);
  ASSERT_FALSE(groupMembers(pid).empty());
  const auto t0 = Clock::now();
  EXPECT_EQ(server.stop(), 0);
  EXPECT_LT(Clock::now() - t0, milliseconds(5000));
  EXPECT_TRUE(groupMembers(pid).empty());
}

TEST(ProcessShellStreamEnd, ALongLineArrivesInParts) {
  ServerProcess server(options());
  SseClient sse(server.port(), streamBody("sh -c 'printf %2500000s x'"));
  const auto events = sse.all();
  ASSERT_EQ(events.size(), 4u);
  std::size_t total = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(events[i].name, "stdout");
    total += events[i].data.size() - std::string(R"({"data":""})").size();
  }
  EXPECT_EQ(total, 2500000u);
  EXPECT_EQ(events[3].data, R"({"exit_code":0})");
}

}  // namespace
}  // namespace abx::testing
