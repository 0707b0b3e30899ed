#include "core/policy_decision.h"

#include <type_traits>
#include <variant>

#include "abx/sdk/json.h"
#include "policy/path_rules_guard.h"

namespace abx::kernel {
namespace {

const char* auditName(sdk::AuditLevel level) {
  switch (level) {
    case sdk::AuditLevel::off:
      return "off";
    case sdk::AuditLevel::all:
      return "all";
    default:
      return "deny";
  }
}

void writeStrings(sdk::JsonWriter& w, const std::vector<std::string>& items) {
  w.beginArray();
  for (const auto& item : items) w.value(item);
  w.endArray();
}

void writeParamValue(sdk::JsonWriter& w, const sdk::ParamValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          writeStrings(w, v);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          w.beginArray();
          for (auto item : v) w.value(item);
          w.endArray();
        } else {
          w.value(v);
        }
      },
      value);
}

void writeLimits(sdk::JsonWriter& w, const sdk::Limits& l) {
  w.beginObject()
      .optionalMember("max_bytes", l.max_bytes)
      .optionalMember("max_request_bytes", l.max_request_bytes)
      .optionalMember("max_entries", l.max_entries)
      .optionalMember("max_duration_seconds", l.max_duration_seconds)
      .optionalMember("max_output_bytes", l.max_output_bytes)
      .optionalMember("timeout_seconds", l.timeout_seconds)
      .optionalMember("rate_per_minute", l.rate_per_minute)
      .optionalMember("max_concurrency", l.max_concurrency)
      .endObject();
}

}  // namespace

std::optional<sdk::PathOp> parsePathOp(std::string_view op) {
  if (op == "read") return sdk::PathOp::read;
  if (op == "write") return sdk::PathOp::write;
  if (op == "remove" || op == "delete") return sdk::PathOp::remove;
  if (op == "list") return sdk::PathOp::list;
  return std::nullopt;
}

std::string endpointPolicyJson(const sdk::EndpointPolicy& p) {
  sdk::JsonWriter w;
  w.beginObject().key("scopes");
  writeStrings(w, p.scopes);
  w.key("limits");
  writeLimits(w, p.limits);
  w.key("paths").beginObject().key("allow");
  writeStrings(w, p.paths.allow);
  w.key("deny");
  writeStrings(w, p.paths.deny);
  w.key("read_only");
  writeStrings(w, p.paths.read_only);
  w.member("symlinks", p.paths.symlinks).endObject();
  w.key("params").beginObject();
  for (const auto& [key, value] : p.params.entries()) {
    w.key(key);
    writeParamValue(w, value);
  }
  w.endObject().member("audit", auditName(p.audit)).endObject();
  return w.take();
}

PolicyDecision decide(const Dispatch& dispatch, const Route& route, const sdk::Identity& caller,
                      const std::optional<std::string>& path, sdk::PathOp op) {
  const auto& policy = dispatch.admission->policy(route);
  PolicyDecision d;
  d.endpoint = route.spec.endpoint;
  d.enabled = policy.enabled;
  d.rule = policy.rule;
  d.scopes = policy.scopes;
  if (!policy.enabled) {
    d.allowed = false;
    d.reason = "endpoint_disabled";
    d.status = 404;
    return d;
  }
  if (auto denied = checkScopes(route, policy.scopes, caller)) {
    d.allowed = false;
    d.reason = denied->code;
    d.status = denied->status;
    return d;
  }
  if (path) {
    d.path = *path;
    auto verdict =
        checkPathLexically(dispatch.admission->compiled().base_dir, policy.paths, *path, op);
    if (!verdict.allowed) {
      d.allowed = false;
      d.reason = verdict.code;
      d.status = verdict.status;
    }
  }
  return d;
}

void writeDeclaredParams(sdk::JsonWriter& w, const std::vector<sdk::ParamSpec>& params) {
  static constexpr const char* kTypes[] = {"boolean", "integer",     "number",
                                           "string",  "string_list", "integer_list"};
  w.beginArray();
  for (const auto& p : params) {
    w.beginObject()
        .member("key", p.key)
        .member("type", kTypes[static_cast<int>(p.type)])
        .member("description", p.description);
    if (p.default_value) {
      w.key("default");
      writeParamValue(w, *p.default_value);
    }
    w.optionalMember("min", p.min).optionalMember("max", p.max).endObject();
  }
  w.endArray();
}

std::string decisionJson(const PolicyDecision& d) {
  sdk::JsonWriter w;
  w.beginObject()
      .member("endpoint", d.endpoint)
      .member("enabled", d.enabled)
      .member("allowed", d.allowed)
      .member("rule", d.rule)
      .key("reason");
  d.reason.empty() ? w.null() : w.value(d.reason);
  w.member("status", d.status).key("scopes");
  writeStrings(w, d.scopes);
  w.key("path");
  d.path ? w.value(*d.path) : w.null();
  return w.endObject().take();
}

}  // namespace abx::kernel
