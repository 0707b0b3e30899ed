// The serving-core load benchmark's client (tests/bench/load_bench.sh): in
// one run it holds many SSE subscribers spread over agent sessions, many
// /shell/stream requests, idle keep-alive connections and connections that
// trickle their headers, while it measures GET /health and an authenticated
// GET /commands on fresh connections. It prints figures and never fails on
// a number; it exits 1 only when the server cannot be set up.
//
// usage: abx_load_bench PORT TOKEN MODEL
// environment: BENCH_SSE (2000), BENCH_SHELL (200), BENCH_IDLE (1000),
// BENCH_TRICKLE (500), BENCH_SECONDS (20), BENCH_SERVER_PID (for threads/RSS),
// BENCH_FLOOR_PORT (abx_floor_server's port: its GET /health is probed right
// after ours each round, the machine's latency floor under the same load),
// BENCH_PROBE_NICE (-10: the probing thread's niceness, when it may be raised).
// The prober measures the servers, so it must not wait for the CPU behind
// the children the load starts any more than a kubelet outside the pod
// would; the held connections and the turns run at the default priority.
// Loopback only; every loop is bounded by the run's deadline.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int envInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

/** A blocking loopback connection, or -1. */
int connectTo(int port, bool nonblocking) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (nonblocking) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool sendAll(int fd, const std::string& data, Clock::time_point deadline) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINPROGRESS)) {
      pollfd p{fd, POLLOUT, 0};
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
      continue;
    }
    return false;
  }
  return true;
}

/** One request on a new connection: the whole answer, or "" on timeout or error. */
std::string exchange(int port, const std::string& request, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  int fd = connectTo(port, true);
  if (fd < 0) return {};
  std::string answer;
  if (sendAll(fd, request, deadline)) {
    char buf[16384];
    while (true) {
      pollfd p{fd, POLLIN, 0};
      auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
      if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) {
        answer.clear();
        break;
      }
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      answer.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

std::string get(const std::string& target, const std::string& token = {}) {
  std::string r = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!token.empty()) r += "Authorization: Bearer " + token + "\r\n";
  return r + "\r\n";
}

std::string post(const std::string& target, const std::string& token, const std::string& body,
                 bool keep_alive = false) {
  return "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
         (keep_alive ? "" : "Connection: close\r\n") + "Authorization: Bearer " + token +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

/** A long-lived connection the driver polls: it counts the markers it reads. */
struct Held {
  enum class Kind { sse, shell, idle, trickle } kind = Kind::idle;
  int fd = -1;
  std::string marker;     // counted in what arrives (split-safe through `tail`)
  std::string tail;       // the last marker.size()-1 bytes seen
  int seen = 0;           // markers read
  bool answered = false;  // a status line arrived
  bool closed = false;
  Clock::time_point next_trickle{};
};

void countMarkers(Held& h, const char* data, std::size_t n) {
  if (!h.answered && n > 0) h.answered = true;
  if (h.marker.empty()) return;
  std::string window = h.tail + std::string(data, n);
  for (std::size_t at = window.find(h.marker); at != std::string::npos;
       at = window.find(h.marker, at + h.marker.size()))
    ++h.seen;
  auto keep = std::min(window.size(), h.marker.size() - 1);
  h.tail = window.substr(window.size() - keep);
}

struct Latency {
  std::vector<double> ms;
  int asked = 0;
  /** Seconds into the run of each answer over 10 ms: when the slow ones fell. */
  std::vector<double> slow_at;
};

const Clock::time_point kStart = Clock::now();

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

/** One request on a fresh connection, timed into @p into when it answers 200. */
void timedExchange(int port, const std::string& request, Latency& into) {
  const auto t0 = Clock::now();
  const auto answer = exchange(port, request, milliseconds(5000));
  ++into.asked;
  if (!answer.starts_with("HTTP/1.1 200")) return;
  into.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  if (into.ms.back() > 10)
    into.slow_at.push_back(std::chrono::duration<double>(t0 - kStart).count());
}

void report(const char* what, const Latency& l) {
  std::printf("%-26s %5d asked  %5zu answered (%5.1f %%)  p50 %8.2f ms  p99 %8.2f ms\n", what,
              l.asked, l.ms.size(),
              l.asked ? 100.0 * static_cast<double>(l.ms.size()) / l.asked : 0,
              percentile(l.ms, 0.5), percentile(l.ms, 0.99));
  if (l.slow_at.empty()) return;
  std::printf("%-26s %zu over 10 ms, at s:", "", l.slow_at.size());
  for (double at : l.slow_at) std::printf(" %.1f", at);
  std::printf("  (max %.2f ms)\n", *std::max_element(l.ms.begin(), l.ms.end()));
}

/** Threads and VmRSS (KiB) of @p pid, or zeros. */
std::pair<int, long> threadsAndRss(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  int threads = 0;
  long rss = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Threads:")) threads = std::atoi(line.c_str() + 8);
    if (line.starts_with("VmRSS:")) rss = std::atol(line.c_str() + 6);
  }
  return {threads, rss};
}

std::vector<std::string> createSessions(int port, const std::string& token,
                                        const std::string& model, int count) {
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    auto answer =
        exchange(port, post("/v1/agents/sessions", token, R"({"agent_id":")" + model + R"("})"),
                 milliseconds(10000));
    auto at = answer.find("\"id\":\"");
    if (answer.find(" 200 ") == std::string::npos || at == std::string::npos) {
      std::cerr << "session create failed: " << answer.substr(0, 300) << "\n";
      return {};
    }
    ids.push_back(answer.substr(at + 6, answer.find('"', at + 6) - at - 6));
  }
  return ids;
}

/** Opens the held connections, the slow way first (each one needs an answer line to count). */
void openHeld(std::vector<Held>& held, int port, const std::string& token,
              const std::vector<std::string>& sessions, int sse, int shell, int idle, int trickle) {
  auto deadline = Clock::now() + std::chrono::seconds(30);
  auto add = [&](Held::Kind kind, const std::string& request, std::string marker) {
    Held h;
    h.kind = kind;
    h.fd = connectTo(port, true);
    h.marker = std::move(marker);
    if (h.fd < 0 || !sendAll(h.fd, request, deadline)) h.closed = true;
    held.push_back(std::move(h));
  };
  for (int i = 0; i < sse; ++i)
    add(Held::Kind::sse,
        get("/v1/agents/sessions/" + sessions[static_cast<std::size_t>(i) % sessions.size()] +
                "/events",
            token),
        "event: agent.session.turn.completed");
  for (int i = 0; i < shell; ++i)
    add(Held::Kind::shell,
        post(
            "/shell/stream", token,
            R"({"command":["/bin/sh","-c","for i in 1 2 3 4 5 6 7 8 9 10; do echo tick; sleep 1; done"]})"),
        "tick");
  for (int i = 0; i < idle; ++i)
    add(Held::Kind::idle,
        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  // keep-alive, then silence
        "");
  for (int i = 0; i < trickle; ++i)
    add(Held::Kind::trickle, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", "");
}

/** Reads what the held connections receive and trickles header lines until @p end. */
void driveHeld(std::vector<Held>& held, Clock::time_point end, std::atomic<bool>& stop) {
  std::vector<pollfd> fds;
  char buf[65536];
  while (Clock::now() < end && !stop.load()) {
    fds.clear();
    for (auto& h : held) fds.push_back({h.closed ? -1 : h.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 100);
    auto now = Clock::now();
    for (std::size_t i = 0; i < held.size(); ++i) {
      Held& h = held[i];
      if (h.closed) continue;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = ::recv(h.fd, buf, sizeof buf, 0);
        if (n > 0)
          countMarkers(h, buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EAGAIN)
          h.closed = true;
      }
      if (h.kind == Held::Kind::trickle && !h.closed && now >= h.next_trickle) {
        ::send(h.fd, "X-Trickle: 1\r\n", 14, MSG_NOSIGNAL);
        h.next_trickle = now + std::chrono::seconds(2);
      }
    }
  }
}

void summarise(const std::vector<Held>& held) {
  struct Row {
    const char* name;
    Held::Kind kind;
  };
  for (Row row :
       {Row{"SSE subscribers", Held::Kind::sse}, Row{"/shell/stream", Held::Kind::shell},
        Row{"idle keep-alive", Held::Kind::idle}, Row{"trickling headers", Held::Kind::trickle}}) {
    int total = 0, answered = 0, closed = 0, got_marker = 0;
    long markers = 0;
    for (const auto& h : held) {
      if (h.kind != row.kind) continue;
      ++total;
      answered += h.answered;
      closed += h.closed;
      got_marker += h.seen > 0;
      markers += h.seen;
    }
    std::printf("%-18s %5d open  %5d answered  %5d closed by the server", row.name, total, answered,
                closed);
    if (row.kind == Held::Kind::sse)
      std::printf("  %5d saw their session's turn complete", got_marker);
    if (row.kind == Held::Kind::shell)
      std::printf("  %5d got output (%ld lines)", got_marker, markers);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: abx_load_bench PORT TOKEN MODEL\n";
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const std::string token = argv[2];
  const std::string model = argv[3];
  const int sse = envInt("BENCH_SSE", 2000), shell = envInt("BENCH_SHELL", 200),
            idle = envInt("BENCH_IDLE", 1000), trickle = envInt("BENCH_TRICKLE", 500),
            seconds = envInt("BENCH_SECONDS", 20), server_pid = envInt("BENCH_SERVER_PID", 0),
            floor_port = envInt("BENCH_FLOOR_PORT", 0),
            probe_nice = envInt("BENCH_PROBE_NICE", -10);
  rlimit files{65536, 65536};
  ::setrlimit(RLIMIT_NOFILE, &files);

  // 32 subscribers at most per session (the wire's limit).
  auto sessions = createSessions(port, token, model, std::max(1, (sse + 31) / 32));
  if (sessions.empty()) return 1;

  auto before = threadsAndRss(server_pid);
  std::vector<Held> held;
  openHeld(held, port, token, sessions, sse, shell, idle, trickle);
  std::printf("opened %zu held connections\n", held.size());

  std::atomic<bool> stop{false};
  auto end = Clock::now() + std::chrono::seconds(seconds);
  std::thread driver([&] { driveHeld(held, end, stop); });

  Latency health, commands, floor;
  int peak_threads = 0;
  long peak_rss = 0;
  std::mutex mutex;
  std::thread turns([&] {
    // A turn on every session half-way through: each subscriber should see it end.
    std::this_thread::sleep_for(std::chrono::seconds(seconds / 3));
    for (const auto& id : sessions)
      exchange(port,
               post("/v1/agents/sessions/" + id + "/events", token,
                    R"({"events":[{"type":"agent.session.input.message","input":"load"}]})"),
               milliseconds(10000));
  });
  // After the other threads started, so only the prober is raised.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), probe_nice);
  std::printf("probing thread at nice %d\n",
              ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid())));
  for (int i = 0; Clock::now() < end; ++i) {
    timedExchange(port, get("/health"), health);
    if (floor_port > 0) timedExchange(floor_port, get("/health"), floor);
    if (i % 4 == 0) timedExchange(port, get("/commands", token), commands);
    auto [threads, rss] = threadsAndRss(server_pid);
    std::lock_guard lock(mutex);
    peak_threads = std::max(peak_threads, threads);
    peak_rss = std::max(peak_rss, rss);
    std::this_thread::sleep_for(milliseconds(50));
  }
  turns.join();
  stop = true;
  driver.join();

  report("GET /health", health);
  report("GET /commands (auth)", commands);
  if (floor_port > 0) report("floor GET /health", floor);
  summarise(held);
  std::printf("server threads: %d before, %d peak; RSS %.1f MiB before, %.1f MiB peak\n",
              before.first, peak_threads, static_cast<double>(before.second) / 1024,
              static_cast<double>(peak_rss) / 1024);
  for (auto& h : held)
    if (h.fd >= 0) ::close(h.fd);
  return 0;
}
