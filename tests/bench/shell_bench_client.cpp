// The client half of tests/bench/shell_bench.sh: in one process, on one
// keep-alive connection, N sequential `POST /shell {"command":"true"}` round
// trips, N bare posix_spawnp + waitpid of `true` (the floor: what running
// the command costs without the server) and N runs of `true` through the
// SDK's Subprocess as the plugin spawns it (no HTTP), interleaved in 20
// rounds. Prints per-call mean / p50 / p99 of each, round trips per second,
// and the overhead per call above the floor as a difference and a ratio.
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "abx/sdk/subprocess.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct Stats {
  double mean_us = 0, p50_us = 0, p99_us = 0, total_s = 0;
};

Stats summarise(std::vector<double> us) {
  Stats s;
  if (us.empty()) return s;
  for (double v : us) s.total_s += v / 1e6;
  s.mean_us = s.total_s * 1e6 / static_cast<double>(us.size());
  std::sort(us.begin(), us.end());
  s.p50_us = us[us.size() / 2];
  s.p99_us = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  return s;
}

double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

std::vector<double> floorLoop(int n) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  char name[] = "true";
  char* argv[] = {name, nullptr};
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    pid_t pid = 0;
    if (posix_spawnp(&pid, "true", nullptr, nullptr, argv, environ) != 0) {
      std::perror("posix_spawnp");
      std::exit(1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
    }
    out.push_back(since(t0));
  }
  return out;
}

// The SDK's Subprocess as the plugin drives it for `true` (own session and
// group, signal state reset, pipes, explicit environment, pidfd), without HTTP.
std::vector<double> subprocessLoop(int n) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  abx::sdk::SpawnOptions options;
  options.argv = {"true"};
  for (char** e = environ; *e; ++e) options.env.emplace_back(*e);
  options.stdin_pipe = false;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    auto child = abx::sdk::Subprocess::spawn(options);
    if (!child) {
      std::fprintf(stderr, "spawn: %s\n", child.status().message().c_str());
      std::exit(1);
    }
    while (child->readChunk(std::chrono::milliseconds(1000))) {
    }
    child->wait();
    out.push_back(since(t0));
  }
  return out;
}

// One cheap round trip on the same connection: what HTTP costs by itself.
std::vector<double> healthLoop(Poco::Net::HTTPClientSession& session, int n) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  std::string reply;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    Poco::Net::HTTPRequest request("GET", "/health", Poco::Net::HTTPMessage::HTTP_1_1);
    request.setKeepAlive(true);
    session.sendRequest(request);
    Poco::Net::HTTPResponse response;
    auto& in = session.receiveResponse(response);
    reply.clear();
    Poco::StreamCopier::copyToString(in, reply);
    out.push_back(since(t0));
  }
  return out;
}

std::vector<double> shellLoop(Poco::Net::HTTPClientSession& session, int n,
                              const std::string& token) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  const std::string body = R"({"command":"true"})";
  std::string reply;
  for (int i = 0; i < n; ++i) {
    const auto t0 = Clock::now();
    Poco::Net::HTTPRequest request("POST", "/shell", Poco::Net::HTTPMessage::HTTP_1_1);
    request.setKeepAlive(true);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    if (!token.empty()) request.set("X-Access-Token", token);
    session.sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    auto& in = session.receiveResponse(response);
    reply.clear();
    Poco::StreamCopier::copyToString(in, reply);
    out.push_back(since(t0));
    if (response.getStatus() != Poco::Net::HTTPResponse::HTTP_OK ||
        reply.find(R"("exit_code":0)") == std::string::npos) {
      std::fprintf(stderr, "POST /shell answered %d: %s\n", static_cast<int>(response.getStatus()),
                   reply.c_str());
      std::exit(1);
    }
  }
  return out;
}

void print(const char* what, const Stats& s, int n) {
  std::printf("| %-36s | %6d | %9.1f | %9.1f | %9.1f | %9.0f |\n", what, n, s.mean_us, s.p50_us,
              s.p99_us, static_cast<double>(n) / s.total_s);
}

}  // namespace

int main(int argc, char** argv) {
  int port = 0, n = 2000;
  std::string token;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--port")) port = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--token")) token = argv[i + 1];
  }
  if (port <= 0 || n <= 0) {
    std::fprintf(stderr, "usage: %s --port P [--n N] [--token T]\n", argv[0]);
    return 2;
  }
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  session.setKeepAlive(true);
  session.setTimeout(Poco::Timespan(30, 0));

  // Warm-up: page cache, the server's threads, the connection.
  floorLoop(n / 10 + 1);
  subprocessLoop(n / 10 + 1);
  shellLoop(session, n / 10 + 1, token);

  // Interleaved rounds, alternating which goes first, so both loops see the
  // same machine (the floor alone drifts by tens of percent over a run here).
  constexpr int kRounds = 20;
  std::vector<double> floor_all, sdk_all, shell_all, health_all;
  auto append = [](std::vector<double>& into, std::vector<double> more) {
    into.insert(into.end(), more.begin(), more.end());
  };
  for (int round = 0; round < kRounds; ++round) {
    const int k = n / kRounds + (round < n % kRounds ? 1 : 0);
    if (round % 2 == 0) {
      append(floor_all, floorLoop(k));
      append(sdk_all, subprocessLoop(k));
      append(shell_all, shellLoop(session, k, token));
      append(health_all, healthLoop(session, k));
    } else {
      append(health_all, healthLoop(session, k));
      append(shell_all, shellLoop(session, k, token));
      append(sdk_all, subprocessLoop(k));
      append(floor_all, floorLoop(k));
    }
  }

  const Stats f = summarise(floor_all);
  const Stats d = summarise(sdk_all);
  const Stats s = summarise(shell_all);
  const Stats h = summarise(health_all);
  std::printf("| %-36s | %6s | %9s | %9s | %9s | %9s |\n", "what", "calls", "mean us", "p50 us",
              "p99 us", "calls/s");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", "--------------------------------------", "--------",
              "-----------", "-----------", "-----------", "-----------");
  print("POST /shell true (keep-alive)", s, n);
  print("sdk::Subprocess spawn+read+wait true", d, n);
  print("posix_spawnp+waitpid true (floor)", f, n);
  print("GET /health (keep-alive)", h, n);
  std::printf(
      "\noverhead per call above the floor: mean %.1f us, p50 %.1f us; ratio /shell / "
      "floor: mean %.2f, p50 %.2f (%d interleaved rounds)\n",
      s.mean_us - f.mean_us, s.p50_us - f.p50_us, s.mean_us / f.mean_us, s.p50_us / f.p50_us,
      kRounds);
  std::printf(
      "split of the mean overhead: the SDK's safe spawn (session, signal reset, pipes, pidfd) "
      "%.1f us, an HTTP round trip %.1f us, the rest (request handling and spawning from the "
      "server's process) %.1f us\n",
      d.mean_us - f.mean_us, h.mean_us, s.mean_us - d.mean_us - h.mean_us);
  return 0;
}
