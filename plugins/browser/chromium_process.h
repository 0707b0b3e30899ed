// ChromiumProcess: one headless Chromium, started through the SDK's
// Subprocess (own process group, explicit environment) with a fresh
// --user-data-dir and --remote-debugging-port=0; its DevTools port is read
// from the DevToolsActivePort file Chromium writes there. Its output goes to
// /dev/null (nobody reads it, and a full pipe would stall it). Destroying it
// kills the whole group and removes the profile directory.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::browser {

/** The program names looked up in the child PATH, in order. */
inline constexpr const char* kChromiumNames[] = {"chromium", "chromium-browser"};

/** The first of kChromiumNames found in @p path_value (a PATH), or nullopt. */
std::optional<std::string> findChromium(std::string_view path_value);

/** The flags every launch uses (spec: headless, no sandbox, no background traffic). */
std::vector<std::string> chromiumFlags(const std::string& user_data_dir);

/** "<port>\n<browser path>\n" -> the port; nullopt until the file is complete. */
std::optional<int> parseActivePort(std::string_view text);

class ChromiumProcess {
 public:
  /**
   * Starts @p program with chromiumFlags() and waits (up to @p timeout) for
   * its DevTools port. @p env: the child environment; HOME and the XDG dirs
   * are pointed into the profile, so nothing is written to the caller's home.
   */
  static sdk::Result<std::unique_ptr<ChromiumProcess>> launch(const std::string& program,
                                                              std::vector<std::string> env,
                                                              std::chrono::milliseconds timeout);
  ~ChromiumProcess();
  ChromiumProcess(const ChromiumProcess&) = delete;
  ChromiumProcess& operator=(const ChromiumProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return process_ ? process_->pid() : -1; }
  /** False once the Chromium process exited. */
  bool alive();

 private:
  ChromiumProcess() = default;
  std::optional<sdk::Subprocess> process_;
  std::string profile_dir_;
  int port_ = 0;
};

}  // namespace abx::plugins::browser
