// Test doubles for the process plugin's unit tests: a ChildEnvironment, a
// PathGuard that allows one directory tree, and a request builder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "abx/sdk/path_guard.h"

namespace abx::plugins::process::testing {

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
  std::map<std::string, std::string> vars{{"PATH", "/usr/local/bin:/usr/bin:/bin"}};
};

/** Allows paths under `base` (relative ones are taken against it); records calls. */
class FakePathGuard final : public sdk::PathGuard {
 public:
  explicit FakePathGuard(std::string base_dir) : base(std::move(base_dir)) {}
  sdk::PathCheck check(std::string_view endpoint, std::string_view path,
                       sdk::PathOp op) const override {
    calls.push_back({std::string(endpoint), std::string(path), op});
    std::string abs =
        !path.empty() && path.front() == '/' ? std::string(path) : base + "/" + std::string(path);
    if (abs.ends_with("/.")) abs.resize(abs.size() - 2);
    sdk::PathCheck verdict;
    if (abs == base || abs.starts_with(base + "/")) {
      verdict.allowed = true;
      verdict.resolved = abs;
    } else {
      verdict.code = "path_not_allowed";
      verdict.message = "Path not allowed: " + std::string(path);
    }
    return verdict;
  }
  sdk::Result<int> open(std::string_view, std::string_view, sdk::PathOp, int, int) const override {
    return sdk::Status::error("not used", "OSError");
  }
  struct Call {
    std::string endpoint, path;
    sdk::PathOp op;
  };
  std::string base;
  mutable std::vector<Call> calls;
};

/** A request as the kernel hands it over; @p body is parsed when given. */
inline sdk::Request makeRequest(std::string method, std::string path, std::string endpoint,
                                std::string body = {},
                                const sdk::EndpointPolicy* policy = nullptr) {
  sdk::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.endpoint = std::move(endpoint);
  r.body = std::move(body);
  if (!r.body.empty()) {
    auto parsed = sdk::Json::parse(r.body);
    if (parsed) r.json = *parsed;
  }
  r.policy = policy;
  return r;
}

}  // namespace abx::plugins::process::testing
