// Pipeline::admitOutside: the pipeline's Host/Origin, authentication,
// admission and audit stages for requests a plugin serves on its own
// listener (HostContext::admit), so they obey the same rules as HTTP.
#include <chrono>
#include <memory>

#include "pipeline/pipeline.h"

namespace abx::kernel {
namespace {

/** A refusal in the plain error shape (these listeners are never /v1). */
sdk::Admission refused(const ApiError& e) {
  sdk::Admission a;
  a.allowed = false;
  a.status = e.status;
  auto rendered = renderError("", e);
  a.body = std::move(rendered.body);
  for (auto& [name, value] : rendered.headers)
    if (name == "Retry-After") a.headers.emplace_back(name, value);
  return a;
}

std::optional<std::string_view> header(const sdk::AdmissionRequest& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return std::nullopt;
}

bool presentedToken(const sdk::AdmissionRequest& r) {
  return r.identity || header(r, "x-access-token") || header(r, "authorization");
}

}  // namespace

std::string Pipeline::denialRule(const sdk::EndpointPolicy& policy, const ApiError& e) {
  if (e.code == "missing_scope") return "scopes";
  for (const auto& [k, v] : e.fields)
    if (k == "limit") return "limits:" + v;
  return policy.rule;
}

sdk::Admission Pipeline::admitOutside(const sdk::AdmissionRequest& request) const {
  const std::shared_ptr<const Dispatch> dispatch = current();  // for the whole admission
  const Route* route = dispatch ? dispatch->routes->findEndpoint(request.endpoint) : nullptr;
  if (!route) {
    ApiError e;
    e.status = 404;
    e.message = "Not found: " + request.path;
    return refused(e);
  }
  const sdk::EndpointPolicy& policy = dispatch->admission->policy(*route);
  auto audit = [&](bool allowed, const sdk::Identity* who, std::string_view rule,
                   std::string_view code, int status) {
    if (!dispatch->audit->wants(allowed, policy.audit)) return;
    AuditEntry entry;
    entry.identity = who ? std::string_view(who->id) : std::string_view("unauthenticated");
    entry.endpoint = route->spec.endpoint;
    entry.method = request.method;
    entry.path = request.path;
    entry.allowed = allowed;
    entry.rule = rule;
    entry.code = code;
    entry.status = status;
    dispatch->audit->record(entry);
  };
  auto deny = [&](const ApiError& e, const sdk::Identity* who, const std::string& rule) {
    audit(false, who, rule, e.code, e.status);
    if (metrics_) metrics_->refusedBy(rule, e.code, presentedToken(request));
    return refused(e);
  };

  if (origins_) {
    auto local = [&request] { return request.local_address; };
    std::optional<ApiError> refusal = origins_->checkHost(header(request, "host"), local);
    auto origin = header(request, "origin");
    if (!refusal && origin &&
        origins_->classify(*origin, local) == OriginPolicy::OriginKind::foreign)
      refusal = OriginPolicy::originError(*origin);
    if (refusal) return deny(*refusal, nullptr, refusal->status == 421 ? "host" : "origin");
  }

  sdk::Identity caller = dispatch->auth->openIdentity();
  if (request.identity) {
    caller = *request.identity;
  } else if (dispatch->auth->enabled()) {
    auto outcome = dispatch->auth->authenticate(request.headers);
    if (auto* error = std::get_if<ApiError>(&outcome)) return deny(*error, nullptr, "auth");
    caller = std::get<sdk::Identity>(outcome);
  }

  Verdict verdict = dispatch->admission->admit(*route, caller);
  if (verdict.error) return deny(*verdict.error, &caller, denialRule(policy, *verdict.error));
  audit(true, &caller, policy.rule, {}, 101);
  sdk::Admission admitted;
  admitted.allowed = true;
  admitted.status = 101;
  admitted.identity = std::move(caller);
  admitted.lease = std::make_shared<AdmissionLease>(std::move(verdict.lease));
  return admitted;
}

}  // namespace abx::kernel
