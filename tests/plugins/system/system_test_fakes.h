// Test doubles for the system plugin's unit tests: an in-memory
// ChildEnvironment that refuses names like the host's, a redactor, and a
// request builder.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "abx/sdk/redactor.h"

namespace abx::plugins::system::testing {

/** Like the kernel's store: refuses ABX_SERVER_* and `refused` names; counts set() calls. */
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
    ++set_calls;
    if (name.starts_with("ABX_SERVER_") || refused.count(std::string(name)))
      return sdk::Status::error("Cannot modify protected variable: " + std::string(name),
                                "PermissionError");
    vars[std::string(name)] = std::string(value);
    return sdk::Status::ok();
  }
  std::map<std::string, std::string> vars;
  std::set<std::string> refused;
  int set_calls = 0;
};

class FakeRedactor final : public sdk::Redactor {
 public:
  void addSecret(std::string_view value) override { secrets.emplace_back(value); }
  std::string redact(std::string_view text) const override {
    std::string out(text);
    for (const auto& s : secrets)
      for (std::size_t at; (at = out.find(s)) != std::string::npos;)
        out.replace(at, s.size(), "[REDACTED]");
    return out;
  }
  std::vector<std::string> secrets;
};

/** A request as the kernel hands it over; @p body is parsed when given. */
inline sdk::Request makeRequest(std::string method, std::string path, std::string body = {},
                                const sdk::EndpointPolicy* policy = nullptr) {
  sdk::Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.body = std::move(body);
  if (!r.body.empty()) {
    auto parsed = sdk::Json::parse(r.body);
    if (parsed) r.json = *parsed;
  }
  r.policy = policy;
  return r;
}

}  // namespace abx::plugins::system::testing
