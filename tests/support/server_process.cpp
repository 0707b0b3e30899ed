#include "server_process.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace abx::testing {

std::string serverBinary() { return ABX_SERVER_BINARY; }
std::string pluginDir() { return ABX_PLUGIN_DIR; }
std::string fixtureDir() { return ABX_FIXTURE_DIR; }
std::string sourceDir() { return ABX_SOURCE_DIR; }

ServerProcess::ServerProcess(ServerOptions options) {
  char tmpl[] = "/tmp/abx-it-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  auto expand = [&](std::string text) {
    for (std::size_t pos; (pos = text.find("{dir}")) != std::string::npos;)
      text.replace(pos, 5, dir_);
    return text;
  };
  for (const auto& [name, text] : options.files) std::ofstream(dir_ + "/" + name) << expand(text);
  for (auto& a : options.args) a = expand(a);
  for (auto& [k, v] : options.env) v = expand(v);
  std::vector<std::string> argv = {
      "/bin/sh",      "-c",       "exec \"$0\" \"$@\" 2>\"$ABX_TEST_STDERR\"",
      serverBinary(), "serve",    "--host",
      "127.0.0.1",    "--port",   "0",
      "--plugin-dir", pluginDir()};
  if (options.manifest) {
    std::ofstream(dir_ + "/plugins.yaml") << *options.manifest;
    argv.push_back("--plugins");
    argv.push_back(dir_ + "/plugins.yaml");
  }
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  // Later entries replace earlier ones of the same name: the test's own
  // variables win over what the test process passes through.
  std::map<std::string, std::string> env;
  // The sanitizers' options reach a sanitized server (tests/sanitize/run.sh).
  for (const auto& entry :
       sdk::Subprocess::inheritEnv({"PATH", "HOME", "LANG", "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                    "LSAN_OPTIONS", "TSAN_OPTIONS"}))
    env[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  env["ABX_TEST_STDERR"] = dir_ + "/stderr.txt";
  env["ABX_SERVER_BASE_DIR"] = dir_;
  if (options.run_as) {
    const passwd* user = ::getpwnam(options.run_as->c_str());
    if (!user) throw std::runtime_error("no such user: " + *options.run_as);
    auto give = [&](const std::string& path) {
      if (::chown(path.c_str(), user->pw_uid, user->pw_gid) != 0)
        throw std::runtime_error("chown failed: " + path);
    };
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_))
      give(entry.path().string());
    give(dir_);
    argv.insert(argv.begin(), {"/usr/bin/setpriv", "--reuid=" + std::to_string(user->pw_uid),
                               "--regid=" + std::to_string(user->pw_gid), "--clear-groups"});
    env["HOME"] = dir_;
  }
  for (const auto& [k, v] : options.env) env[k] = v;
  sdk::SpawnOptions spawn;
  spawn.argv = argv;
  for (const auto& [k, v] : env) spawn.env.push_back(k + "=" + v);
  spawn.stdin_pipe = false;
  if (!options.cwd.empty()) {
    spawn.cwd = expand(options.cwd);
    std::filesystem::create_directories(spawn.cwd);
  }
  auto started = sdk::Subprocess::spawn(spawn);
  if (!started) throw std::runtime_error("spawn failed: " + started.status().message());
  process_.emplace(std::move(started).value());
  if (!options.expect_ready) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    auto line = process_->readLine(std::chrono::milliseconds(100));
    if (line) {
      out_ += line->text + "\n";
      constexpr std::string_view kPrefix = "listening on 127.0.0.1:";
      if (line->text.starts_with(kPrefix)) {
        port_ = std::stoi(line->text.substr(kPrefix.size()));
        return;
      }
    } else if (process_->outputDone() || process_->poll()) {
      break;
    }
  }
  throw std::runtime_error("server did not become ready; stderr:\n" + stderrText());
}

ServerProcess::~ServerProcess() {
  if (process_ && !exit_code_) stop(std::chrono::seconds(5));
  failOnSanitizerReport();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

bool ServerProcess::running() { return process_ && !exit_code_ && !process_->poll(); }

int ServerProcess::stop(std::chrono::milliseconds timeout) {
  if (exit_code_) return *exit_code_;
  ::kill(process_->pid(), SIGTERM);
  auto code = process_->waitFor(timeout);
  if (!code)
    code = process_->terminate({std::chrono::milliseconds(100), std::chrono::milliseconds(100)});
  exit_code_ = code;
  return *code;
}

std::optional<int> ServerProcess::waitExit(std::chrono::milliseconds timeout) {
  if (exit_code_) return exit_code_;
  auto code = process_->waitFor(timeout);
  if (code) exit_code_ = code;
  return code;
}

void ServerProcess::failOnSanitizerReport() {
  // A sanitized build (ABX_SANITIZE) prints its findings on stderr and exits;
  // the exit code alone is not enough (a test may expect a failing server).
  static constexpr std::string_view kMarkers[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                                  ": runtime error: ", "WARNING: ThreadSanitizer"};
  const std::string& err = stderrText();
  for (auto marker : kMarkers) {
    auto at = err.find(marker);
    if (at == std::string::npos) continue;
    auto from = err.rfind('\n', at);
    from = from == std::string::npos ? 0 : from + 1;
    ADD_FAILURE() << "sanitizer report in the server's stderr:\n" << err.substr(from, 16000);
    return;
  }
}

const std::string& ServerProcess::stderrText() {
  std::ifstream in(dir_ + "/stderr.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  err_ = ss.str();
  return err_;
}

HttpResult http(int port, const std::string& method, const std::string& target,
                const std::string& body,
                const std::vector<std::pair<std::string, std::string>>& headers) {
  Poco::Net::HTTPClientSession session("127.0.0.1", static_cast<Poco::UInt16>(port));
  session.setTimeout(Poco::Timespan(20, 0));
  Poco::Net::HTTPRequest request(method, target, Poco::Net::HTTPMessage::HTTP_1_1);
  for (const auto& [k, v] : headers) request.add(k, v);
  if (!body.empty() || method == "POST") {
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    if (!request.has("Content-Type")) request.setContentType("application/json");
  }
  auto& out = session.sendRequest(request);
  out << body;
  Poco::Net::HTTPResponse response;
  auto& in = session.receiveResponse(response);
  HttpResult result;
  result.status = static_cast<int>(response.getStatus());
  Poco::StreamCopier::copyToString(in, result.body);
  for (const auto& [k, v] : response) {
    std::string name = k;
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    result.headers[name] = v;
  }
  return result;
}

int connectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::size_t connectBurst(int port, std::size_t count, std::chrono::milliseconds wait) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<pollfd> burst;
  for (std::size_t i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    burst.push_back({fd, POLLOUT, 0});
  }
  std::size_t connected = 0;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (connected < count && std::chrono::steady_clock::now() < deadline) {
    ::poll(burst.data(), burst.size(), 50);
    connected = 0;
    for (const auto& p : burst) {
      int error = 0;
      socklen_t len = sizeof error;
      ::getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &error, &len);
      if ((p.revents & POLLOUT) && error == 0) ++connected;
    }
  }
  for (const auto& p : burst)
    if (p.fd >= 0) ::close(p.fd);
  return connected;
}

Received receiveUntil(int fd, std::string& received, std::chrono::milliseconds wait,
                      const std::function<bool(const std::string&)>& done) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  char buf[16384];
  while (!(done && done(received))) {
    if (std::chrono::steady_clock::now() >= deadline) return Received::timed_out;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return Received::closed;
    received.append(buf, static_cast<std::size_t>(n));
  }
  return Received::done;
}

std::string rawHttp(int port, const std::string& raw, std::chrono::milliseconds timeout) {
  Poco::Net::StreamSocket socket(
      Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)));
  socket.setReceiveTimeout(Poco::Timespan(static_cast<long>(timeout.count()) * 1000));
  socket.sendBytes(raw.data(), static_cast<int>(raw.size()));
  std::string out;
  char buf[4096];
  try {
    while (true) {
      int n = socket.receiveBytes(buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
    }
  } catch (const Poco::TimeoutException&) {
  }
  return out;
}

}  // namespace abx::testing
