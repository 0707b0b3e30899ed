// The stream engine under concurrency: the kernel's HttpServer (event loop,
// workers, SseHub) serving detached SSE feeds fed by producer threads,
// deferred answers given from other threads, clients that hang up mid-stream,
// and a drain while streams are open. Each client checks what it read; the
// ThreadSanitizer build (tests/sanitize/run.sh tsan) runs this file to find
// the races the assertions cannot see.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "http/sse_writer.h"
#include "pipeline/pipeline.h"

namespace {

using abx::kernel::AuditLog;
using abx::kernel::Authenticator;
using abx::kernel::DefaultAdmission;
using abx::kernel::Dispatch;
using abx::kernel::GroupRecord;
using abx::kernel::HttpServer;
using abx::kernel::Pipeline;
using abx::kernel::SseHub;
using abx::sdk::Request;
using abx::sdk::Response;
using abx::sdk::RouteSpec;
using abx::sdk::SseFeed;
using abx::sdk::SseStream;
using abx::sdk::SseWaker;
using namespace std::chrono_literals;

/** A bounded queue of encoded events a producer thread fills. */
class QueueFeed final : public SseFeed {
 public:
  Pull pull(std::string& out, std::size_t budget) override {
    std::lock_guard lock(mutex_);
    while (!frames_.empty() && out.size() < budget) {
      out += frames_.front();
      frames_.pop_front();
    }
    if (!frames_.empty()) return Pull::more;
    return finished_ ? Pull::end : Pull::wait;
  }
  void closed() override { gone_.store(true); }

  void push(std::string frame) {
    std::lock_guard lock(mutex_);
    frames_.push_back(std::move(frame));
  }
  void finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  bool gone() const { return gone_.load(); }

 private:
  std::mutex mutex_;
  std::deque<std::string> frames_;
  bool finished_ = false;
  std::atomic<bool> gone_{false};
};

/** A feed whose pull() does not return until released (at most 5 s): a plugin's slow producer. */
class BlockingFeed final : public SseFeed {
 public:
  Pull pull(std::string&, std::size_t) override {
    std::unique_lock lock(mutex_);
    pulling_ = true;
    changed_.notify_all();
    changed_.wait_for(lock, 5s, [this] { return released_; });
    return Pull::end;
  }
  bool waitUntilPulled() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 5s, [this] { return pulling_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool pulling_ = false;
  bool released_ = false;
};

/** Producer threads outlive their handler call; joined before the server goes. */
class Producers {
 public:
  void start(std::function<void()> work) {
    std::lock_guard lock(mutex_);
    threads_.emplace_back(std::move(work));
  }
  void joinAll() {
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      threads.swap(threads_);
    }
    for (auto& t : threads) t.join();
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

RouteSpec streamRoute(std::string path, std::string endpoint, abx::sdk::StreamHandler handler) {
  RouteSpec spec;
  spec.method = "GET";
  spec.path = std::move(path);
  spec.endpoint = std::move(endpoint);
  spec.group = "core";
  spec.streaming = true;
  spec.auth_required = false;
  spec.stream_handler = std::move(handler);
  return spec;
}

class StreamEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    dispatch_->routes->add(
        streamRoute("/feed", "feed",
                    [this](const Request& r, SseStream& sse) { return serveFeed(r, sse); }),
        "core");
    dispatch_->routes->add(
        streamRoute("/later", "later",
                    [this](const Request&, SseStream& sse) {
                      auto answer = sse.defer({});
                      if (!answer)
                        return std::optional<Response>(Response::json("{\"late\":false}"));
                      producers_.start([answer] {
                        std::this_thread::sleep_for(20ms);
                        answer->answer(Response::json("{\"late\":true}"));
                      });
                      return std::optional<Response>();
                    }),
        "core");
    dispatch_->routes->add(streamRoute("/stall", "stall",
                                       [this](const Request&, SseStream& sse) {
                                         if (!sse.detach(stalled_))
                                           return std::optional<Response>(
                                               Response::error(500, "no detach", "RuntimeError"));
                                         return std::optional<Response>();
                                       }),
                           "core");
    RouteSpec plain;
    plain.method = "GET";
    plain.path = "/plain";
    plain.endpoint = "plain";
    plain.group = "core";
    plain.auth_required = false;
    plain.handler = [](const Request&) { return Response::json("{\"plain\":true}"); };
    dispatch_->routes->add(std::move(plain), "core");
    dispatch_->admission = std::make_unique<DefaultAdmission>(
        *dispatch_->routes, std::vector<GroupRecord>{{{"core", false, ""}, "core"}},
        std::vector<std::string>{});
    dispatch_->auth = std::make_unique<Authenticator>(std::nullopt);
    dispatch_->audit = std::make_unique<AuditLog>(nullptr);
    pipeline_.publish(dispatch_);
    server_ = std::make_unique<HttpServer>(pipeline_, hub_, 4);
    port_ = server_->listen("127.0.0.1", 0);
  }
  void TearDown() override {
    if (server_) server_->drain(5s);
    producers_.joinAll();
    server_.reset();
  }

  /** /feed?n=N: N numbered events from a producer thread; n=0: until the stream ends. */
  std::optional<Response> serveFeed(const Request& r, SseStream& sse) {
    auto feed = std::make_shared<QueueFeed>();
    auto waker = sse.detach(feed);
    if (!waker) return Response::error(500, "cannot detach", "RuntimeError");
    int n = std::stoi(std::string(r.queryParam("n").value_or("0")));
    producers_.start([feed, waker, n] {
      for (int i = 0; n == 0 || i < n; ++i) {
        if (!waker->open()) return;
        std::string frame;
        abx::sdk::appendSseFrame(frame, "tick", std::to_string(i), std::to_string(i));
        feed->push(std::move(frame));
        waker->wake();
        if (i % 16 == 0) std::this_thread::sleep_for(1ms);
      }
      feed->finish();
      waker->wake();
    });
    return std::nullopt;
  }

  int connect() const {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      return -1;
    }
    timeval tv{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
  }

  /** Sends a GET and reads until close or until @p stop_after bytes. */
  std::string get(const std::string& target, std::size_t stop_after = SIZE_MAX) const {
    int fd = connect();
    if (fd < 0) return "";
    std::string request =
        "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
      ::close(fd);
      return "";
    }
    std::string out;
    char buf[8192];
    while (out.size() < stop_after) {
      auto got = ::recv(fd, buf, sizeof buf, 0);
      if (got <= 0) break;
      out.append(buf, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return out;
  }

  std::shared_ptr<BlockingFeed> stalled_ = std::make_shared<BlockingFeed>();
  std::shared_ptr<Dispatch> dispatch_ = std::make_shared<Dispatch>();
  Pipeline pipeline_;
  SseHub hub_{50ms};
  Producers producers_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

/** The numbers of the `data:` lines of an SSE body, in order. */
std::vector<int> ticks(const std::string& body) {
  std::vector<int> out;
  for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
    at += 6;
    out.push_back(std::atoi(body.c_str() + at));
  }
  return out;
}

TEST_F(StreamEngine, ConcurrentFeedsDeliverEveryEventInOrder) {
  constexpr int kClients = 12, kEvents = 300;
  std::vector<std::string> bodies(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c)
    clients.emplace_back([&, c] { bodies[c] = get("/feed?n=" + std::to_string(kEvents)); });
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    auto got = ticks(bodies[c]);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kEvents)) << "client " << c;
    for (int i = 0; i < kEvents; ++i) ASSERT_EQ(got[i], i) << "client " << c;
  }
}

TEST_F(StreamEngine, DeferredAnswersFromOtherThreadsReachTheirClients) {
  constexpr int kClients = 16;
  std::vector<std::string> bodies(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) clients.emplace_back([&, c] { bodies[c] = get("/later"); });
  for (auto& t : clients) t.join();
  for (const auto& body : bodies) {
    EXPECT_NE(body.find("HTTP/1.1 200"), std::string::npos) << body;
    EXPECT_NE(body.find("{\"late\":true}"), std::string::npos) << body;
  }
}

TEST_F(StreamEngine, ClientsThatHangUpMidStreamEndTheirFeedsOnly) {
  std::vector<std::thread> clients;
  std::string whole;
  for (int c = 0; c < 8; ++c) clients.emplace_back([&] { get("/feed?n=0", 256); });
  clients.emplace_back([&] { whole = get("/feed?n=200"); });
  for (auto& t : clients) t.join();
  EXPECT_EQ(ticks(whole).size(), 200u);
  // The endless producers stop once the loop noticed their clients left.
  auto deadline = std::chrono::steady_clock::now() + 10s;
  std::thread joiner([&] { producers_.joinAll(); });
  joiner.join();
  EXPECT_LT(std::chrono::steady_clock::now(), deadline);
}

// Streams are pumped on a thread of their own: a feed that is slow to give
// its text holds up the streams, never the loop that accepts connections
// and reads their requests.
TEST_F(StreamEngine, AFeedSlowToPullDelaysNoNewRequest) {
  std::thread stalled_client([&] { get("/stall"); });
  ASSERT_TRUE(stalled_->waitUntilPulled());
  const auto asked = std::chrono::steady_clock::now();
  const std::string plain = get("/plain");
  const auto took = std::chrono::steady_clock::now() - asked;
  stalled_->release();
  stalled_client.join();
  EXPECT_NE(plain.find("{\"plain\":true}"), std::string::npos) << plain;
  EXPECT_LT(took, 2s);
}

TEST_F(StreamEngine, DrainEndsOpenStreamsAndTheirProducers) {
  std::vector<std::thread> clients;
  std::atomic<int> ended{0};
  for (int c = 0; c < 6; ++c)
    clients.emplace_back([&] {
      get("/feed?n=0");  // returns when the server ends the stream
      ended.fetch_add(1);
    });
  std::this_thread::sleep_for(200ms);
  auto started = std::chrono::steady_clock::now();
  server_->drain(3s);
  for (auto& t : clients) t.join();
  producers_.joinAll();
  EXPECT_EQ(ended.load(), 6);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 8s);
}

}  // namespace
