#include "core/core_endpoints.h"

#include <deque>
#include <filesystem>
#include <map>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "core/audit_endpoint.h"
#include "core/policy_decision.h"
#include "openapi/openapi_document.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

struct GroupSummary {
  int enabled = 0;
  int total = 0;
  bool opt_in = false;
  std::string owner;
  const std::vector<sdk::ParamSpec>* params = nullptr;
};

std::map<std::string, GroupSummary> summarizeGroups(const CoreState& state,
                                                    const Dispatch& dispatch) {
  std::map<std::string, GroupSummary> groups;
  for (const auto& g : *state.groups) {
    auto& s = groups[g.spec.name];
    s.opt_in = g.spec.opt_in;
    s.owner = g.owner;
    s.params = &g.spec.params;
  }
  for (const auto& route : dispatch.routes->routes()) {
    auto& s = groups[route->spec.group];
    ++s.total;
    if (dispatch.admission->policy(*route).enabled) ++s.enabled;
  }
  return groups;
}

void writeGroups(sdk::JsonWriter& w, const std::map<std::string, GroupSummary>& groups) {
  w.key("groups").beginObject();
  for (const auto& [name, s] : groups) w.member(name, s.enabled > 0);
  w.endObject().key("group_summary").beginObject();
  for (const auto& [name, s] : groups) {
    w.key(name)
        .beginObject()
        .member("enabled", s.enabled)
        .member("total", s.total)
        .member("opt_in", s.opt_in)
        .member("plugin", s.owner)
        .key("params");
    writeDeclaredParams(w, s.params ? *s.params : std::vector<sdk::ParamSpec>{});
    w.endObject();
  }
  w.endObject();
}

// The reason of a decision: null when it allowed.
void writeReason(sdk::JsonWriter& w, const std::string& reason) {
  w.key("reason");
  reason.empty() ? w.null() : w.value(reason);
}

void writeEndpoints(sdk::JsonWriter& w, const Dispatch& dispatch, const sdk::Identity& caller) {
  w.key("endpoints").beginObject();
  for (const auto& view : endpointViews(dispatch, caller)) {
    const auto& spec = view.route->spec;
    w.key(spec.endpoint)
        .beginObject()
        .member("method", spec.method)
        .member("path", spec.path)
        .member("group", spec.group)
        .member("summary", spec.summary)
        .member("streaming", spec.streaming)
        .member("auth_required", spec.auth_required)
        .member("enabled", view.policy->enabled)
        .member("allowed", view.decision.allowed);
    writeReason(w, view.decision.reason);
    // The effective rule's fields (scopes, limits, paths, params, audit) sit
    // beside the route's own.
    w.member("rule", view.policy->rule).members(endpointPolicyJson(*view.policy));
    w.member("plugin", view.route->owner).endObject();
  }
  w.endObject();
}

void writePlugins(sdk::JsonWriter& w, const std::deque<PluginRecord>& plugins) {
  w.key("plugins").beginArray();
  for (const auto& p : plugins) {
    w.beginObject()
        .member("name", p.entry.name)
        .member("file", p.path)
        .member("id", p.id)
        .member("version", p.version)
        .member("kind", kindName(p.kind))
        .member("state", p.state)
        .member("required", p.entry.required)
        .member("groups", p.groups);
    if (p.error) writeLoadError(w.key("error"), *p.error);
    w.endObject();
  }
  w.endArray();
}

std::string capabilities(const CoreState& state, const sdk::Identity& caller) {
  const std::shared_ptr<const Dispatch> dispatch = state.pipeline->current();
  const CompiledPolicy& policy = dispatch->admission->compiled();
  std::vector<std::string> warnings = state.warnings;
  for (const auto& w : policy.warnings) warnings.push_back(w);

  sdk::JsonWriter w(16 * 1024);
  w.beginObject().member("api_version", 2).member("server_version", state.server_version);
  w.key("identity").beginObject().member("id", caller.id).member("scopes", caller.scopes);
  w.endObject().key("policy").beginObject().member("preset", policy.preset);
  w.member("revision", policy.revision).member("sources", policy.sources).endObject();
  writeGroups(w, summarizeGroups(state, *dispatch));
  writeEndpoints(w, *dispatch, caller);
  writePlugins(w, *state.plugins);
  w.member("warnings", warnings).endObject();
  return w.take();
}

// Policy-only: paths are judged lexically and the filesystem is never
// consulted, so the check cannot tell whether a path exists.
sdk::Response check(const CoreState& state, const sdk::Request& request) {
  auto endpoint = request.json.string("endpoint");
  if (!endpoint) return sdk::Response::error(400, endpoint.status().message(), "ValueError");
  auto path = request.json.string("path", std::string());
  if (!path) return sdk::Response::error(400, path.status().message(), "ValueError");
  auto paths = request.json.stringList("paths", std::vector<std::string>{});
  if (!paths) return sdk::Response::error(400, paths.status().message(), "ValueError");
  auto op_name = request.json.string("op", std::string("read"));
  if (!op_name) return sdk::Response::error(400, op_name.status().message(), "ValueError");
  auto op = parsePathOp(*op_name);
  if (!op)
    return sdk::Response::error(400, "Field 'op' must be one of read, write, remove, list",
                                "ValueError");
  const std::shared_ptr<const Dispatch> dispatch = state.pipeline->current();
  const Route* route = dispatch->routes->findEndpoint(*endpoint);
  if (!route) {
    std::vector<std::string> ids;
    for (const auto& r : dispatch->routes->routes()) ids.push_back(r->spec.endpoint);
    return sdk::Response::error(400,
                                "Unknown endpoint '" + *endpoint + "'" + didYouMean(*endpoint, ids),
                                "ValueError", "unknown_endpoint");
  }
  std::optional<std::string> single;
  if (!path->empty()) single = *path;
  auto decision = decide(*dispatch, *route, request.identity, single, *op);
  if (paths->empty()) return sdk::Response::json(decisionJson(decision));
  std::vector<PolicyDecision> each;
  for (const auto& p : *paths) {
    each.push_back(decide(*dispatch, *route, request.identity, p, *op));
    if (!each.back().allowed && decision.allowed) decision = each.back();  // the first denial
  }
  sdk::JsonWriter w;
  w.beginObject().members(decisionJson(decision)).key("paths").beginArray();
  for (std::size_t i = 0; i < paths->size(); ++i) {
    w.beginObject().member("path", (*paths)[i]).member("allowed", each[i].allowed);
    writeReason(w, each[i].reason);
    w.endObject();
  }
  w.endArray().endObject();
  return sdk::Response::json(w.take());
}

/** {"status": @p status}: the bodies of /health and /ready. */
std::string statusBody(std::string_view status) {
  return sdk::JsonWriter().beginObject().member("status", status).endObject().take();
}

}  // namespace

std::vector<EndpointView> endpointViews(const Dispatch& dispatch, const sdk::Identity& caller) {
  std::vector<EndpointView> views;
  views.reserve(dispatch.routes->size());
  for (const auto& route : dispatch.routes->routes()) {
    auto& view = views.emplace_back();
    view.route = route.get();
    view.policy = &dispatch.admission->policy(*route);
    view.decision = decide(dispatch, *route, caller, std::nullopt, sdk::PathOp::read);
  }
  return views;
}

std::string openApiFor(const CoreState& state, const sdk::Identity& caller,
                       const std::string& server_url) {
  OpenApiInputs in;
  in.catalog = state.openapi ? &state.openapi->get() : nullptr;
  in.groups = state.groups;
  in.version = state.server_version;
  in.server_url = server_url;
  // The views point into the dispatch: it is held until they are used.
  const std::shared_ptr<const Dispatch> dispatch = state.pipeline->current();
  for (const auto& view : endpointViews(*dispatch, caller))
    if (view.offered()) in.routes.push_back(view.route);
  return openApiDocument(in);
}

void writeLoadError(sdk::JsonWriter& w, const LoadError& error) {
  w.beginObject().member("stage", error.stage).member("message", error.message).endObject();
}

GroupRecord coreGroup() { return {{"core", false, "health, readiness and discovery"}, "core"}; }

namespace {

// Every core route is in group core, registered by "core".
void addCore(RouteTable& routes, const char* method, const char* path, const char* id,
             const char* summary, sdk::Handler handler, bool auth_required = true,
             std::vector<std::string> scopes = {}) {
  sdk::RouteSpec spec;
  spec.method = method;
  spec.path = path;
  spec.endpoint = id;
  spec.group = "core";
  spec.summary = summary;
  spec.auth_required = auth_required;
  spec.scopes = std::move(scopes);
  spec.handler = std::move(handler);
  routes.add(std::move(spec), "core");
}

}  // namespace

void addCoreRoutes(RouteTable& routes, CoreState& state) {
  // Written once: the /health hot path copies a constant, it builds no JSON.
  static const std::string kHealth = statusBody("ok");
  addCore(
      routes, "GET", "/health", "health", "Liveness: always 200",
      [](const sdk::Request&) { return sdk::Response::json(kHealth); }, false);
  addCore(
      routes, "GET", "/ready", "ready",
      "Readiness: 503 until every plugin started and while draining",
      [&state](const sdk::Request&) {
        static const std::string kReady = statusBody("ready");
        static const std::string kDraining = statusBody("draining");
        static const std::string kStarting = statusBody("starting");
        switch (state.readiness.load()) {
          case Readiness::ready:
            return sdk::Response::json(kReady);
          case Readiness::draining:
            return sdk::Response::json(kDraining, 503);
          default:
            return sdk::Response::json(kStarting, 503);
        }
      },
      false);
  addCore(routes, "GET", "/capabilities", "capabilities",
          "Groups, endpoints, plugins and the caller's identity", [&state](const sdk::Request& r) {
            return sdk::Response::json(capabilities(state, r.identity));
          });
  addCore(routes, "POST", "/capabilities/check", "capabilities_check",
          "The policy decision for a hypothetical call",
          [&state](const sdk::Request& r) { return check(state, r); });
  addCore(routes, "GET", "/openapi.json", "openapi",
          "The OpenAPI 3.1 document of the endpoints the caller may use",
          [&state](const sdk::Request& r) {
            return sdk::Response::json(
                openApiFor(state, r.identity, serverUrlFor(r.header("host").value_or(""))));
          });
  if (const AuditRing* ring = state.audit)
    addCore(routes, "GET", "/audit/recent", "audit_recent",
            "The newest audit records, newest first",
            [ring](const sdk::Request& r) { return auditRecent(*ring, r); }, true, {"audit:read"});
  // The one core route behind a scope: its numbers describe every caller's traffic.
  addCore(routes, "GET", "/metrics", "metrics",
          "Server and plugin metrics in the Prometheus text format",
          [&state](const sdk::Request&) {
            sdk::Response r;
            r.content_type = std::string(MetricsRegistry::kContentType);
            if (state.metrics) r.body = state.metrics->scrape();
            return r;
          },
          true, {"metrics:read"});
}

}  // namespace abx::kernel
