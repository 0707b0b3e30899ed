// Test doubles for the commands plugin's unit tests: an in-memory command
// registry, a route registry that records what start() registered, and a
// gmock HostContext wiring them together.
#pragma once

#include <gmock/gmock.h>

#include <deque>
#include <string>
#include <vector>

#include "abx/sdk/host_context.h"
#include "abx/sdk/http.h"
#include "abx/sdk/testing/mock_host_context.h"

namespace abx::plugins::commands::testing {

/** Like the kernel's registry: unique names, registration order, freezable. */
class FakeCommandRegistry final : public sdk::CommandRegistry {
 public:
  sdk::Status add(sdk::CommandSpec command) override {
    if (frozen) return sdk::Status::error("registry is frozen");
    if (find(command.name))
      return sdk::Status::error("command '" + command.name + "' is already registered",
                                "ValueError");
    commands_.push_back(std::move(command));
    return sdk::Status::ok();
  }
  std::vector<const sdk::CommandSpec*> list() const override {
    std::vector<const sdk::CommandSpec*> out;
    for (const auto& c : commands_) out.push_back(&c);
    return out;
  }
  const sdk::CommandSpec* find(std::string_view name) const override {
    for (const auto& c : commands_)
      if (c.name == name) return &c;
    return nullptr;
  }
  bool frozen = false;

 private:
  std::deque<sdk::CommandSpec> commands_;
};

/** A fixed child environment (the host's would hold the server's). */
class FakeChildEnvironment final : public sdk::ChildEnvironment {
 public:
  std::vector<std::string> snapshot() const override { return vars; }
  std::optional<std::string> get(std::string_view) const override { return std::nullopt; }
  sdk::Status set(std::string_view, std::string_view) override { return sdk::Status::ok(); }
  std::vector<std::string> vars{"HOME=/root"};
};

class FakeRouteRegistry final : public sdk::RouteRegistry {
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
  const sdk::RouteSpec* byEndpoint(std::string_view id) const {
    for (const auto& r : routes)
      if (r.endpoint == id) return &r;
    return nullptr;
  }
  std::vector<sdk::GroupSpec> groups;
  std::vector<sdk::RouteSpec> routes;
};

class FakeLogger final : public sdk::Logger {
 public:
  void log(sdk::LogLevel, std::string_view message) override { lines.emplace_back(message); }
  std::vector<std::string> lines;
};

using MockHost = abx::sdk::testing::MockHostContext;

/** A request as the kernel hands it over after admission. */
inline sdk::Request makeRequest(std::string method, std::string path, std::string body = {},
                                std::vector<std::string> scopes = {"*"}) {
  sdk::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  if (!r.body.empty()) {
    auto parsed = sdk::Json::parse(r.body);
    if (parsed) r.json = *parsed;
  }
  r.identity.id = "test";
  r.identity.scopes = std::move(scopes);
  return r;
}

/** A POST /commands/{name} request. */
inline sdk::Request runRequest(const std::string& name, std::string body = {},
                               std::vector<std::string> scopes = {"*"}) {
  auto r = makeRequest("POST", "/commands/" + name, std::move(body), std::move(scopes));
  r.endpoint = "commands_run";
  r.path_params["name"] = name;
  return r;
}

}  // namespace abx::plugins::commands::testing
