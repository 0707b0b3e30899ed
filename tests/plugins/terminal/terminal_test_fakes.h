// Test doubles for the terminal plugin's unit tests: a PathGuard that
// allows one directory tree, an in-memory ChildEnvironment, a logger, and
// a RouteRegistry that records what the plugin registers.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/logger.h"
#include "abx/sdk/path_guard.h"
#include "abx/sdk/routes.h"

namespace abx::plugins::terminal::testing {

/** Allows paths under `root` (lexically); denies the rest with path_not_allowed. */
class FakePathGuard final : public sdk::PathGuard {
 public:
  explicit FakePathGuard(std::string root) : root(std::move(root)) {}
  sdk::PathCheck check(std::string_view endpoint, std::string_view path,
                       sdk::PathOp) const override {
    last_endpoint = std::string(endpoint);
    sdk::PathCheck c;
    std::string p(path);
    if (p == root || p.starts_with(root + "/")) {
      c.allowed = true;
      c.resolved = p;
    } else {
      c.code = "path_not_allowed";
      c.message = "Path not allowed: " + p;
    }
    return c;
  }
  sdk::Result<int> open(std::string_view, std::string_view, sdk::PathOp, int, int) const override {
    return sdk::Status::error("not used", "PermissionError");
  }
  std::string root;
  mutable std::string last_endpoint;
};

class FakeEnvironment final : public sdk::ChildEnvironment {
 public:
  std::vector<std::string> snapshot() const override {
    std::vector<std::string> out;
    for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
    return out;
  }
  std::optional<std::string> get(std::string_view name) const override {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  }
  sdk::Status set(std::string_view name, std::string_view value) override {
    vars[std::string(name)] = std::string(value);
    return sdk::Status::ok();
  }
  std::map<std::string, std::string> vars;
};

class FakeLogger final : public sdk::Logger {
 public:
  void log(sdk::LogLevel, std::string_view message) override {
    std::lock_guard lock(mutex);
    lines.emplace_back(message);
  }
  std::mutex mutex;
  std::vector<std::string> lines;
};

class RecordingRoutes final : public sdk::RouteRegistry {
 public:
  sdk::Status declareGroup(const sdk::GroupSpec& group) override {
    groups.push_back(group);
    return sdk::Status::ok();
  }
  sdk::Status add(sdk::RouteSpec route) override {
    routes.push_back(std::move(route));
    return sdk::Status::ok();
  }
  sdk::Status enableGroup(std::string_view) override { return sdk::Status::ok(); }
  sdk::Status disableGroup(std::string_view) override { return sdk::Status::ok(); }
  std::vector<sdk::GroupSpec> groups;
  std::vector<sdk::RouteSpec> routes;
};

}  // namespace abx::plugins::terminal::testing
