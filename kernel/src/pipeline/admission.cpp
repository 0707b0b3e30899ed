#include "pipeline/admission.h"

#include <algorithm>
#include <cmath>

#include "policy/policy_engine.h"
#include "support/did_you_mean.h"

namespace abx::kernel {

PolicyAdmission::PolicyAdmission(const RouteTable& routes,
                                 std::shared_ptr<const CompiledPolicy> compiled)
    : compiled_(std::move(compiled)) {
  runtime_.reserve(routes.size());
  for (std::size_t i = 0; i < routes.size(); ++i) runtime_.push_back(std::make_shared<Runtime>());
}

std::optional<ApiError> checkScopes(const Route& route, const std::vector<std::string>& scopes,
                                    const sdk::Identity& caller) {
  for (const auto& scope : scopes) {
    if (caller.hasScope(scope)) continue;
    ApiError e;
    e.status = 403;
    e.message = "Missing scope '" + scope + "' for endpoint '" + route.spec.endpoint + "'";
    e.type = "PermissionError";
    e.code = "missing_scope";
    e.fields = {{"endpoint", route.spec.endpoint}, {"scope", scope}};
    return e;
  }
  return std::nullopt;
}

std::optional<ApiError> checkScopes(const Route& route, const sdk::Identity& caller) {
  return checkScopes(route, route.spec.scopes, caller);
}

namespace {

ApiError tooMany(const Route& route, std::string message, std::string code, std::string limit,
                 std::int64_t retry_after) {
  ApiError e;
  e.status = 429;
  e.message = std::move(message);
  e.type = "ResourceError";
  e.code = std::move(code);
  e.fields = {{"endpoint", route.spec.endpoint}, {"limit", std::move(limit)}};
  e.retry_after = retry_after;
  return e;
}

}  // namespace

// A token bucket per (endpoint, identity): rate_per_minute tokens, refilled
// continuously, so a burst of up to the whole minute's allowance is allowed.
std::optional<ApiError> PolicyAdmission::takeRateToken(const Route& route,
                                                       const sdk::EndpointPolicy& policy,
                                                       const sdk::Identity& caller) const {
  const double capacity = *policy.limits.rate_per_minute;
  const double per_second = capacity / 60.0;
  auto& rt = *runtime_[route.index];
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(rt.mutex);
  auto [it, fresh] = rt.buckets.try_emplace(caller.id, Bucket{capacity, now});
  Bucket& b = it->second;
  if (!fresh) {
    double elapsed = std::chrono::duration<double>(now - b.updated).count();
    b.tokens = std::min(capacity, b.tokens + elapsed * per_second);
    b.updated = now;
  }
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return std::nullopt;
  }
  auto wait = static_cast<std::int64_t>(std::ceil((1.0 - b.tokens) / per_second));
  return tooMany(route,
                 "Rate limit exceeded for endpoint '" + route.spec.endpoint + "': " +
                     std::to_string(static_cast<long long>(capacity)) + " requests per minute",
                 "rate_limited", "rate_per_minute", std::max<std::int64_t>(1, wait));
}

Verdict PolicyAdmission::admit(const Route& route, const sdk::Identity& caller) const {
  Verdict v;
  const auto& policy = compiled_->endpoints[route.index];
  if (!policy.enabled) {
    ApiError e;
    e.status = 404;
    e.message = "Endpoint '" + route.spec.endpoint + "' is disabled";
    e.type = "PolicyError";
    e.code = "endpoint_disabled";
    e.fields = {{"endpoint", route.spec.endpoint}, {"rule", policy.rule}};
    v.error = std::move(e);
    return v;
  }
  if (auto denied = checkScopes(route, policy.scopes, caller)) {
    v.error = std::move(denied);
    return v;
  }
  // Concurrency first: a call refused for concurrency spends no rate token.
  if (policy.limits.max_concurrency) {
    const auto& runtime = runtime_[route.index];
    auto& counter = runtime->in_flight;
    if (counter.fetch_add(1, std::memory_order_acq_rel) >= *policy.limits.max_concurrency) {
      counter.fetch_sub(1, std::memory_order_acq_rel);
      v.error = tooMany(route,
                        "Too many concurrent requests to endpoint '" + route.spec.endpoint +
                            "': at most " + std::to_string(*policy.limits.max_concurrency),
                        "concurrency_limited", "max_concurrency", 1);
      return v;
    }
    v.lease = AdmissionLease(std::shared_ptr<std::atomic<std::uint32_t>>(runtime, &counter));
  }
  if (policy.limits.rate_per_minute) {
    if (auto limited = takeRateToken(route, policy, caller)) {
      v.error = std::move(limited);
      v.lease = AdmissionLease();  // a refused call holds no slot
      return v;
    }
  }
  return v;
}

EndpointState PolicyAdmission::state(const Route& route) const {
  const auto& p = compiled_->endpoints[route.index];
  return {p.enabled, p.rule};
}

namespace {
std::shared_ptr<const CompiledPolicy> compileDefault(const RouteTable& routes,
                                                     const std::vector<GroupRecord>& groups,
                                                     const std::vector<std::string>& enabled) {
  PolicyInputs in;
  in.routes = &routes;
  in.groups = groups;
  in.env_groups = enabled;
  // The default and environment layers cannot fail validation.
  return *compilePolicy(in, 0);
}
}  // namespace

DefaultAdmission::DefaultAdmission(const RouteTable& routes, const std::vector<GroupRecord>& groups,
                                   const std::vector<std::string>& enabled_groups)
    : PolicyAdmission(routes, compileDefault(routes, groups, enabled_groups)) {}

sdk::Result<std::vector<std::string>> DefaultAdmission::parseEnabledGroups(
    std::string_view value, const std::vector<GroupRecord>& groups) {
  std::vector<std::string> known;
  for (const auto& g : groups) known.push_back(g.spec.name);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t end = value.find(',', start);
    if (end == std::string_view::npos) end = value.size();
    auto name = value.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        return sdk::Status::error("ABX_SERVER_ENABLED_GROUPS: unknown group '" + std::string(name) +
                                      "'" + didYouMean(name, known) + "; installed groups: " + list,
                                  "ValueError");
      }
      out.emplace_back(name);
    }
    start = end + 1;
  }
  return out;
}

}  // namespace abx::kernel
