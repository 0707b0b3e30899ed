#include "chromium_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

namespace abx::plugins::browser {
namespace {

/** Screenshots and PDFs of large pages arrive as one message of many MB. */
constexpr std::size_t kMaxMessageBytes = std::size_t(512) << 20;

bool isExecutable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void setVar(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&](const std::string& e) { return e.starts_with(name + "="); });
  env.push_back(name + "=" + value);
}

}  // namespace

std::optional<std::string> findChromium(std::string_view path_value) {
  for (const char* name : kChromiumNames) {
    std::size_t start = 0;
    while (start <= path_value.size()) {
      std::size_t end = path_value.find(':', start);
      if (end == std::string_view::npos) end = path_value.size();
      std::string dir(path_value.substr(start, end - start));
      start = end + 1;
      if (dir.empty()) continue;  // never the server's working directory
      const std::string candidate = dir + "/" + name;
      if (isExecutable(candidate)) return candidate;
    }
  }
  return std::nullopt;
}

std::vector<std::string> chromiumFlags(const std::string& user_data_dir, int proxy_port) {
  return {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--no-default-browser-check", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--disable-extensions",
          "--disable-default-apps", "--disable-dev-shm-usage", "--disable-crash-reporter",
          "--disable-breakpad", "--disable-domain-reliability", "--metrics-recording-only",
          "--mute-audio", "--hide-scrollbars", "--password-store=basic", "--use-mock-keychain",
          "--no-pings", "--remote-debugging-pipe",
          // Every connection through the plugin's proxy, loopback included
          // ("<-loopback>" drops Chromium's implicit bypass of localhost).
          "--proxy-server=socks5://127.0.0.1:" + std::to_string(proxy_port),
          "--proxy-bypass-list=<-loopback>",
          // Chromium resolves no name itself (the proxy does): no DNS
          // prefetch, no DNS-over-HTTPS, no direct connection by address.
          "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
          "--disable-features=DnsOverHttps,AsyncDns,NetworkPrediction,Prerender2,"
          "OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication",
          "--disable-quic",
          // WebRTC: no UDP that does not go through the proxy (none does).
          "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--user-data-dir=" + user_data_dir,
          "--window-size=1280,720", "about:blank"};
}

sdk::Result<std::unique_ptr<ChromiumProcess>> ChromiumProcess::launch(const std::string& program,
                                                                      std::vector<std::string> env,
                                                                      int proxy_port) {
  char tmpl[] = "/tmp/abx-chromium-XXXXXX";
  if (!::mkdtemp(tmpl)) return sdk::Status::error("Cannot create a Chromium profile", "OSError");
  // Chromium runs as the child user when there is one: the profile is its.
  if (auto given = sdk::Subprocess::giveToChildUser(tmpl); !given) {
    ::rmdir(tmpl);
    return given;
  }
  std::unique_ptr<ChromiumProcess> chromium(new ChromiumProcess);
  chromium->profile_dir_ = tmpl;
  const std::string& dir = chromium->profile_dir_;
  setVar(env, "HOME", dir);
  setVar(env, "XDG_CONFIG_HOME", dir + "/.config");
  setVar(env, "XDG_CACHE_HOME", dir + "/.cache");

  sdk::SpawnOptions spawn;
  spawn.argv = {"/bin/sh", "-c", kPipeLauncher, program};
  auto flags = chromiumFlags(dir, proxy_port);
  spawn.argv.insert(spawn.argv.end(), flags.begin(), flags.end());
  spawn.env = std::move(env);
  spawn.cwd = dir;
  spawn.stdin_pipe = true;  // becomes Chromium's fd 3 (commands in)
  auto started = sdk::Subprocess::spawn(spawn);
  if (!started) return started.status();
  chromium->process_.emplace(std::move(started).value());
  return chromium;
}

sdk::Status ChromiumProcess::send(const std::string& message) {
  std::string framed = message;
  framed += '\0';
  if (auto s = process_->writeStdin(framed); !s)
    return sdk::Status::error("DevTools pipe closed: " + s.message(), "ConnectionError");
  return sdk::Status::ok();
}

sdk::Result<std::string> ChromiumProcess::receive(Clock::time_point deadline) {
  while (true) {
    if (const auto end = buffer_.find('\0', scanned_); end != std::string::npos) {
      std::string message = buffer_.substr(0, end);
      buffer_.erase(0, end + 1);
      scanned_ = 0;
      return message;
    }
    scanned_ = buffer_.size();
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto chunk = process_->readChunk(std::max(left, std::chrono::milliseconds(0)));
    if (chunk) {
      if (chunk->stream == sdk::OutputStream::out) buffer_ += chunk->bytes;
      if (buffer_.size() > kMaxMessageBytes)
        return sdk::Status::error("DevTools message too large", "ConnectionError");
      continue;
    }
    if (process_->outputDone())
      return sdk::Status::error("Chromium closed the DevTools pipe", "ConnectionError");
    if (Clock::now() >= deadline)
      return sdk::Status::error("Timed out waiting for Chromium", "TimeoutError");
  }
}

bool ChromiumProcess::alive() { return process_ && !process_->poll(); }

ChromiumProcess::~ChromiumProcess() {
  if (process_) {
    process_->signalGroup(SIGKILL);
    process_->wait();
    process_.reset();
  }
  std::error_code ec;
  if (!profile_dir_.empty()) std::filesystem::remove_all(profile_dir_, ec);
}

}  // namespace abx::plugins::browser
