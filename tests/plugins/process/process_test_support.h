// Helpers of the process plugin's integration tests: waiting for a
// condition, a process's state and group from /proc, and an SSE client for
// POST /shell/stream that reads one event at a time.
#pragma once

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/proc_file.h"

namespace abx::testing {

using Headers = std::vector<std::pair<std::string, std::string>>;

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

/** Fields 3 (state), 4 (ppid) and 5 (pgrp) of /proc/<pid>/stat, if it exists. */
struct ProcStat {
  char state = '?';
  int ppid = 0;
  int pgrp = 0;
};
inline std::optional<ProcStat> procStat(int pid) {
  const std::string text = abx::testing::procStatText(pid);
  auto paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream rest(text.substr(paren + 1));
  ProcStat s;
  rest >> s.state >> s.ppid >> s.pgrp;
  return s;
}

inline std::vector<int> allPids() {
  std::vector<int> pids;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit))
      pids.push_back(std::stoi(name));
  }
  return pids;
}

/** Zombies whose parent is @p parent. */
inline std::vector<int> zombieChildren(int parent) {
  std::vector<int> out;
  for (int pid : allPids())
    if (auto s = procStat(pid); s && s->ppid == parent && s->state == 'Z') out.push_back(pid);
  return out;
}

/** Live processes of process group @p pgrp. */
inline std::vector<int> groupMembers(int pgrp) {
  std::vector<int> out;
  for (int pid : allPids())
    if (auto s = procStat(pid); s && s->pgrp == pgrp && s->state != 'Z') out.push_back(pid);
  return out;
}

struct Event {
  std::string name;
  std::string data;
};

/** POST /shell/stream on its own connection; events read one at a time. */
class SseClient {
 public:
  SseClient(int port, const std::string& body, const Headers& headers = {})
      : session_("127.0.0.1", static_cast<Poco::UInt16>(port)) {
    session_.setTimeout(Poco::Timespan(20, 0));
    Poco::Net::HTTPRequest request("POST", "/shell/stream", Poco::Net::HTTPMessage::HTTP_1_1);
    for (const auto& [k, v] : headers) request.add(k, v);
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body.size()));
    session_.sendRequest(request) << body;
    in_ = &session_.receiveResponse(response_);
  }
  int status() const { return static_cast<int>(response_.getStatus()); }
  std::string contentType() const { return response_.getContentType(); }
  std::string rest() {
    std::string out((std::istreambuf_iterator<char>(*in_)), std::istreambuf_iterator<char>());
    return out;
  }
  /** The next event (comments skipped); nullopt at the end of the stream. */
  std::optional<Event> next() {
    Event event;
    std::string line;
    bool any = false;
    while (std::getline(*in_, line)) {
      if (line.empty()) {
        if (any) return event;
        continue;
      }
      if (line.front() == ':') continue;
      any = true;
      if (line.starts_with("event: ")) event.name = line.substr(7);
      if (line.starts_with("data: ")) event.data += line.substr(6);
    }
    return std::nullopt;
  }
  std::vector<Event> all() {
    std::vector<Event> out;
    while (auto e = next()) out.push_back(*e);
    return out;
  }

 private:
  Poco::Net::HTTPClientSession session_;
  Poco::Net::HTTPResponse response_;
  std::istream* in_ = nullptr;
};

}  // namespace abx::testing
