// ChromiumProcess: one headless Chromium, started through the SDK's
// Subprocess (own process group, explicit environment) with a fresh
// --user-data-dir, driven over its DevTools pipe: Subprocess wires only
// fds 0-2, so a one-line /bin/sh launcher moves the child's stdin and
// stdout pipes onto fds 3 and 4 (--remote-debugging-pipe) and sends
// Chromium's own output to /dev/null. No DevTools socket exists. Every
// connection goes through the plugin's SOCKS proxy. Destroying it kills
// the whole group and removes the profile directory.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"
#include "cdp_client.h"

namespace abx::plugins::browser {

/** The program names looked up in the child PATH, in order. */
inline constexpr const char* kChromiumNames[] = {"chromium", "chromium-browser"};

/** The first of kChromiumNames found in @p path_value (a PATH), or nullopt. */
std::optional<std::string> findChromium(std::string_view path_value);

/**
 * The flags every launch uses: headless, no sandbox, no background traffic,
 * the DevTools pipe, every connection through the SOCKS proxy on
 * 127.0.0.1:@p proxy_port (loopback included), no name resolution of its own.
 */
std::vector<std::string> chromiumFlags(const std::string& user_data_dir, int proxy_port);

/** The /bin/sh script that maps the pipes onto fds 3 and 4 and execs "$0" "$@". */
inline constexpr const char* kPipeLauncher =
    "exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null 2>&1";

class ChromiumProcess : public CdpTransport {
 public:
  /**
   * Starts @p program with chromiumFlags(). @p env: the child environment;
   * HOME and the XDG dirs are pointed into the profile, so nothing is
   * written to the caller's home.
   */
  static sdk::Result<std::unique_ptr<ChromiumProcess>> launch(const std::string& program,
                                                              std::vector<std::string> env,
                                                              int proxy_port);
  ~ChromiumProcess() override;
  ChromiumProcess(const ChromiumProcess&) = delete;
  ChromiumProcess& operator=(const ChromiumProcess&) = delete;

  pid_t pid() const { return process_ ? process_->pid() : -1; }
  /** False once the Chromium process exited. */
  bool alive();

  /** One NUL-terminated message into Chromium's fd 3. */
  sdk::Status send(const std::string& message) override;
  /** The next message from Chromium's fd 4. */
  sdk::Result<std::string> receive(Clock::time_point deadline) override;

 private:
  ChromiumProcess() = default;
  std::optional<sdk::Subprocess> process_;
  std::string profile_dir_;
  std::string buffer_;      /**< bytes read from the pipe, not yet a whole message */
  std::size_t scanned_ = 0; /**< buffer_ has no NUL before this offset */
};

}  // namespace abx::plugins::browser
