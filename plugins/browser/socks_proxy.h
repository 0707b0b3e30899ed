// SocksProxy: the SOCKS5 proxy (RFC 1928, CONNECT only, no authentication)
// on 127.0.0.1 that Chromium must use for every connection
// (--proxy-server=socks5://...). Chromium hands it the host name, not an
// address; the proxy asks the policy (decideConnection), resolves the name
// itself and connects only to the addresses it checked, so the address
// judged is the address connected to (no DNS-rebinding window). A refused
// connection fails inside the page. Each connection has its own thread
// (at most kMaxConnections); destruction wakes and joins them all.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "abx/sdk/status.h"
#include "url_policy.h"

namespace abx::plugins::browser {

class SocksProxy {
 public:
  using Decide = std::function<ConnectDecision(const std::string& host, int port)>;

  /** What happened to a connection the proxy did not open (refused or failed). */
  struct Outcome {
    std::uint64_t sequence = 0;
    std::string host; /**< as Chromium sent it */
    int port = 0;
    UrlVerdict verdict; /**< status 403: the policy; 502: resolution or connection failed */
  };

  static constexpr int kMaxConnections = 256;

  /** Listens on 127.0.0.1 (an ephemeral port) and serves until destroyed. */
  static sdk::Result<std::unique_ptr<SocksProxy>> start(Decide decide);
  ~SocksProxy();
  SocksProxy(const SocksProxy&) = delete;
  SocksProxy& operator=(const SocksProxy&) = delete;

  int port() const { return port_; }
  /** The sequence number the next outcome gets. */
  std::uint64_t nextSequence();
  /** Outcomes recorded at or after @p sequence, oldest first (the last 64 are kept). */
  std::vector<Outcome> outcomesSince(std::uint64_t sequence);

 private:
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  SocksProxy() = default;
  void acceptLoop();
  void serve(int client);
  void record(const std::string& host, int port, UrlVerdict verdict);
  /** Joins connection threads that finished. */
  void reap();

  Decide decide_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1}; /**< readable once the proxy stops: wakes every poll */
  int port_ = 0;
  std::thread acceptor_;
  std::mutex mutex_;
  std::list<Connection> connections_;
  std::vector<Outcome> outcomes_;
  std::uint64_t sequence_ = 1;
};

}  // namespace abx::plugins::browser
