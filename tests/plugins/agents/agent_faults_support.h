// What the fault-injection tests share: the turns of a session read back
// over the wire, the processes a fault agent left (found by a marker in
// their environment, wherever they went), and the server's resident memory.
#pragma once

#include <Poco/JSON/Array.h>
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <dirent.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/agents_server.h"
#include "support/proc_file.h"
#include "support/server_process.h"

namespace abx::testing::faults {

using Clock = std::chrono::steady_clock;

/** A file's bytes ("" when it cannot be read). */
inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Poco::JSON::Object::Ptr parseObject(const std::string& text) {
  Poco::JSON::Parser parser;
  return parser.parse(text).extract<Poco::JSON::Object::Ptr>();
}

/** The pids whose environment holds FAKE_FAULT_MARK=@p mark (zombies have none). */
inline std::vector<pid_t> markedProcesses(const std::string& mark) {
  std::vector<pid_t> out;
  const std::string needle = "FAKE_FAULT_MARK=" + mark;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto environ = readProcFile("/proc/" + name + "/environ");
    if (environ.find(needle + '\0') != std::string::npos) out.push_back(std::stoi(name));
  }
  ::closedir(proc);
  return out;
}

/** VmRSS of @p pid in KiB (0 once it is gone). */
inline long rssKib(pid_t pid) {
  const auto status = readProcFile("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("VmRSS:");
  return at == std::string::npos ? 0 : std::stol(status.substr(at + 6));
}

/** Samples a pid's RSS every 20 ms on a thread until stopped: the peak. */
class RssPeak {
 public:
  explicit RssPeak(pid_t pid) : pid_(pid), baseline_(rssKib(pid)), peak_(baseline_) {
    thread_ = std::thread([this] {
      while (!stop_) {
        peak_ = std::max(peak_.load(), rssKib(pid_));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~RssPeak() { stopNow(); }
  /** Growth of the peak over the RSS at construction, in MiB. */
  double growthMib() {
    stopNow();
    return static_cast<double>(peak_ - baseline_) / 1024.0;
  }

 private:
  void stopNow() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  pid_t pid_;
  long baseline_;
  std::atomic<long> peak_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/** The session's turns, oldest first (empty on any error). */
inline std::vector<Poco::JSON::Object::Ptr> turnsOf(int port, const std::string& session,
                                                    const std::string& token) {
  std::vector<Poco::JSON::Object::Ptr> out;
  auto r = http(port, "GET", "/v1/agents/sessions/" + session + "/turns?order=asc&limit=100", "",
                bearerJson(token));
  if (r.status != 200) return out;
  auto data = parseObject(r.body)->getArray("data");
  for (std::size_t i = 0; data && i < data->size(); ++i) out.push_back(data->getObject(i));
  return out;
}

inline bool terminal(const std::string& status) {
  return status == "completed" || status == "failed" || status == "cancelled";
}

/** Waits until the session has a turn not among @p earlier (ids) and it
 *  ended; nullptr on timeout. (The list's order is not creation order.) */
inline Poco::JSON::Object::Ptr waitTurnEnd(int port, const std::string& session,
                                           const std::string& token,
                                           const std::vector<std::string>& earlier,
                                           std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    for (const auto& turn : turnsOf(port, session, token)) {
      const auto id = turn->getValue<std::string>("id");
      if (std::find(earlier.begin(), earlier.end(), id) == earlier.end() &&
          terminal(turn->getValue<std::string>("status")))
        return turn;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return nullptr;
}

/** Waits up to @p timeout for no marked process to be left; @return those left. */
inline std::vector<pid_t> waitNoneLeft(const std::string& mark, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto left = markedProcesses(mark);
  while (!left.empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = markedProcesses(mark);
  }
  return left;
}

}  // namespace abx::testing::faults
