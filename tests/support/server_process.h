// ServerProcess: starts the real agent-sandbox-server binary on an
// ephemeral port with a temporary manifest, waits for "listening on", and
// stops it with SIGTERM; a sanitizer report in its stderr fails the test
// that started it. HttpClient: a small keep-alive HTTP/1.1 client on
// POCO for the integration tests.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/subprocess.h"

namespace abx::testing {

struct ServerOptions {
  /** Manifest YAML text; written to a temp file. nullopt: no --plugins flag. */
  std::optional<std::string> manifest;
  std::vector<std::string> args;          /**< extra serve flags */
  std::map<std::string, std::string> env; /**< extra environment */
  bool expect_ready = true;
  /** Files written into the server's temp dir before start (name -> text).
   *  "{dir}" in args, env values and file texts becomes that dir. */
  std::map<std::string, std::string> files;
  /** Start the server as this user (the tests run as root): the temp dir
   *  becomes theirs and HOME defaults to it. */
  std::optional<std::string> run_as;
  /** The server's working directory ("{dir}" expanded; created when absent).
   *  Empty: the test's own. */
  std::string cwd;
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options = {});
  ~ServerProcess();

  int port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  bool running();
  /** SIGTERM and wait; @return the exit code. */
  int stop(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  /** Waits for exit (e.g. a start-up failure). @return the exit code. */
  std::optional<int> waitExit(std::chrono::milliseconds timeout);
  /** Everything the server printed on stderr so far (after exit: all of it). */
  const std::string& stderrText();
  const std::string& dir() const { return dir_; }

 private:
  void drain(std::chrono::milliseconds timeout);
  void failOnSanitizerReport();

  std::string dir_;
  std::optional<sdk::Subprocess> process_;
  std::string out_, err_;
  int port_ = 0;
  std::optional<int> exit_code_;
};

struct HttpResult {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers; /**< lower-case names */
};

/** One request on a new connection. */
HttpResult http(int port, const std::string& method, const std::string& target,
                const std::string& body = "",
                const std::vector<std::pair<std::string, std::string>>& headers = {});

/** A blocking TCP socket connected to 127.0.0.1:@p port, or -1. The caller closes it. */
int connectLoopback(int port);

/**
 * Starts @p count non-blocking connects to 127.0.0.1:@p port at once and
 * returns how many completed their handshake within @p wait; closes them.
 * With the server stopped (SIGSTOP) that is how many its listening
 * socket's backlog held.
 */
std::size_t connectBurst(int port, std::size_t count, std::chrono::milliseconds wait);

/** How a receiveUntil() ended. */
enum class Received { done, closed, timed_out };

/**
 * Appends what arrives on @p fd to @p received until @p done(received)
 * holds (checked before each read; null: never), the peer closes or
 * resets, or @p wait passes.
 */
Received receiveUntil(int fd, std::string& received, std::chrono::milliseconds wait,
                      const std::function<bool(const std::string&)>& done = nullptr);

/** Sends @p raw bytes and returns everything read until close or timeout. */
std::string rawHttp(int port, const std::string& raw,
                    std::chrono::milliseconds timeout = std::chrono::seconds(5));

/** Paths the build gave the tests. */
std::string serverBinary();
std::string pluginDir();
std::string fixtureDir();
std::string sourceDir();

}  // namespace abx::testing
