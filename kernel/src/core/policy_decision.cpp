#include "core/policy_decision.h"

#include <charconv>

#include "security/path_rules_guard.h"

namespace abx::kernel {
namespace {

using sdk::jsonQuote;

std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + jsonQuote(items[i]);
  return out + "]";
}

std::string list(const std::vector<std::int64_t>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + std::to_string(items[i]);
  return out + "]";
}

// Shortest text that reads back as the same double.
std::string number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("0");
}

// Appends `"key":value` for a set optional.
template <class T, class F>
void field(std::string& out, const char* key, const std::optional<T>& v, F render) {
  if (!v) return;
  if (out.back() != '{') out += ',';
  out += jsonQuote(key);
  out += ':';
  out += render(*v);
}

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

}  // namespace

std::optional<sdk::PathOp> parsePathOp(std::string_view op) {
  if (op == "read") return sdk::PathOp::read;
  if (op == "write") return sdk::PathOp::write;
  if (op == "remove" || op == "delete") return sdk::PathOp::remove;
  if (op == "list") return sdk::PathOp::list;
  return std::nullopt;
}

std::string endpointPolicyJson(const sdk::EndpointPolicy& p) {
  auto str = [](const std::string& s) { return jsonQuote(s); };
  auto strs = [](const std::vector<std::string>& v) { return list(v); };
  auto u64 = [](std::uint64_t v) { return std::to_string(v); };
  auto dbl = [](double v) { return number(v); };
  auto boolean = [](bool v) { return std::string(v ? "true" : "false"); };

  std::string limits = "{";
  field(limits, "max_bytes", p.limits.max_bytes, u64);
  field(limits, "max_request_bytes", p.limits.max_request_bytes, u64);
  field(limits, "max_entries", p.limits.max_entries, u64);
  field(limits, "max_duration_seconds", p.limits.max_duration_seconds, dbl);
  field(limits, "max_output_bytes", p.limits.max_output_bytes, u64);
  field(limits, "timeout_seconds", p.limits.timeout_seconds, dbl);
  field(limits, "rate_per_minute", p.limits.rate_per_minute, u64);
  field(limits, "max_concurrency", p.limits.max_concurrency, u64);
  limits += "}";

  std::string params = "{";
  field(params, "overwrite", p.params.overwrite, boolean);
  field(params, "allow_extensions", p.params.allow_extensions, strs);
  field(params, "deny_extensions", p.params.deny_extensions, strs);
  field(params, "allow_commands", p.params.allow_commands, strs);
  field(params, "deny_commands", p.params.deny_commands, strs);
  field(params, "languages", p.params.languages, strs);
  field(params, "allowed_signals", p.params.allowed_signals,
        [](const std::vector<std::int64_t>& v) { return list(v); });
  field(params, "url_allow", p.params.url_allow, strs);
  field(params, "url_deny", p.params.url_deny, strs);
  field(params, "block_private_networks", p.params.block_private_networks, boolean);
  field(params, "shells", p.params.shells, strs);
  field(params, "env_deny", p.params.env_deny, strs);
  field(params, "allow_vars", p.params.allow_vars, strs);
  field(params, "deny_vars", p.params.deny_vars, strs);
  params += "}";

  std::string paths = "{\"allow\":" + list(p.paths.allow) + ",\"deny\":" + list(p.paths.deny) +
                      ",\"read_only\":" + list(p.paths.read_only) +
                      ",\"symlinks\":" + str(p.paths.symlinks) + "}";
  return "{\"scopes\":" + list(p.scopes) + ",\"limits\":" + limits + ",\"paths\":" + paths +
         ",\"params\":" + params + ",\"audit\":\"" + auditName(p.audit) + "\"}";
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

std::string decisionJson(const PolicyDecision& d) {
  return "{\"endpoint\":" + jsonQuote(d.endpoint) +
         ",\"enabled\":" + (d.enabled ? "true" : "false") +
         ",\"allowed\":" + (d.allowed ? "true" : "false") + ",\"rule\":" + jsonQuote(d.rule) +
         ",\"reason\":" + (d.reason.empty() ? "null" : jsonQuote(d.reason)) +
         ",\"status\":" + std::to_string(d.status) + ",\"scopes\":" + list(d.scopes) +
         ",\"path\":" + (d.path ? jsonQuote(*d.path) : std::string("null")) + "}";
}

}  // namespace abx::kernel
