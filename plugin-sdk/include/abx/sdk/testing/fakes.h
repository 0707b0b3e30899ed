// Header-only fakes of the HostContext parts plugins use, for plugin unit
// tests: hand them out from a MockHostContext with ReturnRef (fake_host.h
// does it for all of them), or pass them to a plugin's handlers directly. An
// in-memory ChildEnvironment, a PathGuard that allows one directory tree, a
// Logger, a Redactor, a RouteRegistry and a CommandRegistry that record what
// they are given, an SseStream that keeps what a client would receive, and a
// builder of the Request the kernel would hand a handler. Nothing here links
// the kernel.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/commands.h"
#include "abx/sdk/http.h"
#include "abx/sdk/logger.h"
#include "abx/sdk/path_guard.h"
#include "abx/sdk/redactor.h"
#include "abx/sdk/routes.h"

namespace abx::sdk::testing {

/**
 * The child environment as a plain map. Like the host's, set() refuses
 * ABX_SERVER_* and the names in `refused` (PermissionError) and
 * isProtected() names them; `set_calls` counts every set(), refused or not.
 * snapshot() gives `vars` as they are, so a test can plant a protected name.
 */
class FakeEnvironment final : public ChildEnvironment {
 public:
  std::vector<std::string> snapshot() const override {
    std::vector<std::string> out;
    for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
    return out;
  }
  std::optional<std::string> get(std::string_view name) const override {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  Status set(std::string_view name, std::string_view value) override {
    ++set_calls;
    if (isProtected(name))
      return Status::error("Cannot modify protected variable: " + std::string(name),
                           "PermissionError");
    vars[std::string(name)] = std::string(value);
    return Status::ok();
  }
  bool isProtected(std::string_view name) const override {
    return name.starts_with("ABX_SERVER_") || refused.count(std::string(name)) > 0;
  }

  std::map<std::string, std::string> vars;
  std::set<std::string> refused;
  int set_calls = 0;
};

/**
 * Allows `base` and what is under it, lexically (no realpath, no symlinks);
 * a relative path is taken against `base` ("." is `base` itself). Anything
 * else is a 403 path_not_allowed. Every check() is recorded in `calls`.
 */
class FakePathGuard final : public PathGuard {
 public:
  explicit FakePathGuard(std::string base_dir) : base(std::move(base_dir)) {}

  PathCheck check(std::string_view endpoint, std::string_view path, PathOp op) const override {
    calls.push_back({std::string(endpoint), std::string(path), op});
    std::string abs =
        !path.empty() && path.front() == '/' ? std::string(path) : base + "/" + std::string(path);
    if (abs.ends_with("/.")) abs.resize(abs.size() - 2);
    PathCheck verdict;
    if (abs == base || abs.starts_with(base + "/")) {
      verdict.allowed = true;
      verdict.resolved = abs;
    } else {
      verdict.code = "path_not_allowed";
      verdict.message = "Path not allowed: " + std::string(path);
    }
    return verdict;
  }
  Result<int> open(std::string_view, std::string_view, PathOp, int, int) const override {
    return Status::error("FakePathGuard does not open files", "OSError");
  }

  struct Call {
    std::string endpoint;
    std::string path;
    PathOp op;
  };
  std::string base;
  mutable std::vector<Call> calls;
};

/** Keeps every line; safe to log from the plugin's threads. */
class FakeLogger final : public Logger {
 public:
  void log(LogLevel level, std::string_view message) override {
    std::lock_guard lock(mutex);
    levels.push_back(level);
    lines.emplace_back(message);
  }
  /** A copy of the lines so far (the plugin may still be logging). */
  std::vector<std::string> snapshot() {
    std::lock_guard lock(mutex);
    return lines;
  }

  std::mutex mutex;
  std::vector<LogLevel> levels;
  std::vector<std::string> lines;
};

/** Replaces every added secret with "[REDACTED]" (no minimum length). */
class FakeRedactor final : public Redactor {
 public:
  void addSecret(std::string_view value) override { secrets.emplace_back(value); }
  std::string redact(std::string_view text) const override {
    std::string out(text);
    for (const auto& secret : secrets) {
      if (secret.empty()) continue;
      for (std::size_t at; (at = out.find(secret)) != std::string::npos;)
        out.replace(at, secret.size(), "[REDACTED]");
    }
    return out;
  }
  std::vector<std::string> secrets;
};

/** Accepts and records every group and route a plugin registers. */
class RecordingRoutes final : public RouteRegistry {
 public:
  Status declareGroup(const GroupSpec& group) override {
    groups.push_back(group);
    return Status::ok();
  }
  Status add(RouteSpec route) override {
    routes.push_back(std::move(route));
    return Status::ok();
  }
  Status enableGroup(std::string_view group) override {
    enabled.emplace_back(group);
    return Status::ok();
  }
  Status disableGroup(std::string_view group) override {
    disabled.emplace_back(group);
    return Status::ok();
  }
  /** The route with endpoint id @p endpoint; throws when there is none. */
  const RouteSpec& byId(std::string_view endpoint) const {
    for (const auto& route : routes)
      if (route.endpoint == endpoint) return route;
    throw std::runtime_error("no route " + std::string(endpoint));
  }

  std::vector<GroupSpec> groups;
  std::vector<RouteSpec> routes;
  std::vector<std::string> enabled;
  std::vector<std::string> disabled;
};

/** Like the host's registry: unique names in registration order; refuses
 *  everything once `frozen` (the host freezes it after start()). */
class FakeCommandRegistry final : public CommandRegistry {
 public:
  Status add(CommandSpec command) override {
    if (frozen) return Status::error("registry is frozen");
    if (find(command.name))
      return Status::error("command '" + command.name + "' is already registered", "ValueError");
    commands_.push_back(std::move(command));
    return Status::ok();
  }
  std::vector<const CommandSpec*> list() const override {
    std::vector<const CommandSpec*> out;
    for (const auto& c : commands_) out.push_back(&c);
    return out;
  }
  const CommandSpec* find(std::string_view name) const override {
    for (const auto& c : commands_)
      if (c.name == name) return &c;
    return nullptr;
  }
  bool frozen = false;

 private:
  std::deque<CommandSpec> commands_;  // stable addresses: list() hands out pointers
};

/**
 * Keeps what a client would receive: the encoded text of every event,
 * written with event() or handed over encoded with frames(), in `text`;
 * events() reads it back. Once `accept` is false it refuses everything, like
 * a stream whose client left; `comments` counts comment() probes. A producer
 * may write from its own thread while the test reads.
 */
class RecordingStream final : public SseStream {
 public:
  bool begin() override {
    begun = true;
    return accept;
  }
  bool event(std::string_view name, std::string_view data) override {
    if (!accept) return false;
    std::lock_guard lock(mutex);
    appendSseFrame(text, name, data);
    return true;
  }
  bool comment(std::string_view) override {
    ++comments;
    return accept;
  }
  bool open() const override { return accept; }
  bool header(std::string_view name, std::string_view value) override {
    if (begun) return false;
    headers.emplace_back(name, value);
    return true;
  }
  bool frames(std::string_view encoded) override {
    if (!accept) return false;
    std::lock_guard lock(mutex);
    text += encoded;
    return true;
  }
  /** A copy of the text so far (the producer may still be writing). */
  std::string received() {
    std::lock_guard lock(mutex);
    return text;
  }
  /** The whole events so far as (name, data), data lines joined by "\n". */
  std::vector<std::pair<std::string, std::string>> events() {
    std::vector<std::pair<std::string, std::string>> out;
    std::pair<std::string, std::string> event;
    bool any_data = false;
    const std::string all = received();
    std::string_view rest = all;
    while (!rest.empty()) {
      const auto end = rest.find('\n');
      if (end == std::string_view::npos) break;  // a line still being written
      const auto line = rest.substr(0, end);
      rest.remove_prefix(end + 1);
      if (line.empty()) {
        if (any_data) out.push_back(std::exchange(event, {}));
        any_data = false;
      } else if (line.starts_with("event: ")) {
        event.first = line.substr(7);
      } else if (line.starts_with("data: ")) {
        event.second += (any_data ? "\n" : "") + std::string(line.substr(6));
        any_data = true;
      }
    }
    return out;
  }

  std::atomic<bool> accept{true};
  std::atomic<bool> begun{false};
  std::atomic<int> comments{0};
  std::mutex mutex;
  std::string text;
  /** What header() added before the stream began. */
  std::vector<std::pair<std::string, std::string>> headers;
};

/**
 * A request as the kernel hands it to a handler: @p body parsed into
 * Request::json when it is valid JSON, @p policy as the endpoint's rule.
 */
inline Request makeRequest(std::string method, std::string path, std::string body = {},
                           const EndpointPolicy* policy = nullptr, std::string endpoint = {}) {
  Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.endpoint = std::move(endpoint);
  r.body = std::move(body);
  if (!r.body.empty()) {
    auto parsed = Json::parse(r.body);
    if (parsed) r.json = *parsed;
  }
  r.policy = policy;
  return r;
}

}  // namespace abx::sdk::testing
