#include "chromium_process.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace abx::plugins::browser {
namespace {

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

std::vector<std::string> chromiumFlags(const std::string& user_data_dir) {
  return {"--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--no-default-browser-check",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-extensions",
          "--disable-default-apps",
          "--disable-dev-shm-usage",
          "--disable-crash-reporter",
          "--disable-breakpad",
          "--metrics-recording-only",
          "--mute-audio",
          "--hide-scrollbars",
          "--password-store=basic",
          "--use-mock-keychain",
          "--remote-debugging-address=127.0.0.1",
          "--remote-debugging-port=0",
          "--user-data-dir=" + user_data_dir,
          "--window-size=1280,720",
          "about:blank"};
}

std::optional<int> parseActivePort(std::string_view text) {
  const auto newline = text.find('\n');
  if (newline == std::string_view::npos || newline == 0) return std::nullopt;
  if (text.find('\n', newline + 1) == std::string_view::npos && text.size() == newline + 1)
    return std::nullopt;  // the path line has not arrived yet
  int port = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + newline, port);
  if (ec != std::errc() || end != text.data() + newline || port <= 0 || port > 65535)
    return std::nullopt;
  return port;
}

sdk::Result<std::unique_ptr<ChromiumProcess>> ChromiumProcess::launch(
    const std::string& program, std::vector<std::string> env, std::chrono::milliseconds timeout) {
  char tmpl[] = "/tmp/abx-chromium-XXXXXX";
  if (!::mkdtemp(tmpl)) return sdk::Status::error("Cannot create a Chromium profile", "OSError");
  std::unique_ptr<ChromiumProcess> chromium(new ChromiumProcess);
  chromium->profile_dir_ = tmpl;
  const std::string& dir = chromium->profile_dir_;
  setVar(env, "HOME", dir);
  setVar(env, "XDG_CONFIG_HOME", dir + "/.config");
  setVar(env, "XDG_CACHE_HOME", dir + "/.cache");

  sdk::SpawnOptions spawn;
  // The shell only redirects Chromium's output to /dev/null and execs it.
  spawn.argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/null 2>&1", program};
  auto flags = chromiumFlags(dir);
  spawn.argv.insert(spawn.argv.end(), flags.begin(), flags.end());
  spawn.env = std::move(env);
  spawn.cwd = dir;
  spawn.stdin_pipe = false;
  auto started = sdk::Subprocess::spawn(spawn);
  if (!started) return started.status();
  chromium->process_.emplace(std::move(started).value());

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(dir + "/DevToolsActivePort");
    std::stringstream text;
    text << in.rdbuf();
    if (auto port = parseActivePort(text.str())) {
      chromium->port_ = *port;
      return chromium;
    }
    if (auto code = chromium->process_->poll())
      return sdk::Status::error(
          "Chromium exited at start-up (status " + std::to_string(*code) + ")", "BrowserError");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return sdk::Status::error("Chromium did not open its DevTools port in time", "TimeoutError");
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
