#include "core/core_endpoints.h"

#include <filesystem>
#include <map>

#include "core/policy_decision.h"
#include "text/did_you_mean.h"

namespace abx::kernel {
namespace {

using sdk::jsonQuote;

std::string jsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + jsonQuote(items[i]);
  return out + "]";
}

std::string capabilities(const CoreState& state, const sdk::Identity& caller) {
  const Dispatch* dispatch = state.pipeline->current();
  struct Summary {
    int enabled = 0;
    int total = 0;
    bool opt_in = false;
    std::string owner;
  };
  std::map<std::string, Summary> groups;
  for (const auto& g : *state.groups) {
    auto& s = groups[g.spec.name];
    s.opt_in = g.spec.opt_in;
    s.owner = g.owner;
  }
  std::string endpoints = "{";
  bool first = true;
  for (const auto& route : dispatch->routes->routes()) {
    const auto& spec = route->spec;
    const auto& policy = dispatch->admission->policy(*route);
    auto decision = decide(*dispatch, *route, caller, std::nullopt, sdk::PathOp::read);
    // The effective rule's fields (scopes, limits, paths, params, audit),
    // without its enclosing braces, so they sit beside the route's own.
    std::string rule_fields = endpointPolicyJson(policy);
    rule_fields = rule_fields.substr(1, rule_fields.size() - 2);
    auto& s = groups[spec.group];
    ++s.total;
    if (policy.enabled) ++s.enabled;
    endpoints += (first ? "" : ",") + jsonQuote(spec.endpoint) +
                 ":{\"method\":" + jsonQuote(spec.method) + ",\"path\":" + jsonQuote(spec.path) +
                 ",\"group\":" + jsonQuote(spec.group) + ",\"summary\":" + jsonQuote(spec.summary) +
                 ",\"streaming\":" + (spec.streaming ? "true" : "false") +
                 ",\"auth_required\":" + (spec.auth_required ? "true" : "false") +
                 ",\"enabled\":" + (policy.enabled ? "true" : "false") +
                 ",\"allowed\":" + (decision.allowed ? "true" : "false") +
                 ",\"reason\":" + (decision.reason.empty() ? "null" : jsonQuote(decision.reason)) +
                 ",\"rule\":" + jsonQuote(policy.rule) + "," + rule_fields +
                 ",\"plugin\":" + jsonQuote(route->owner) + "}";
    first = false;
  }
  endpoints += "}";

  std::string group_flags = "{", summary = "{";
  first = true;
  for (const auto& [name, s] : groups) {
    group_flags += (first ? "" : ",") + jsonQuote(name) + ":" + (s.enabled > 0 ? "true" : "false");
    summary += (first ? "" : ",") + jsonQuote(name) + ":{\"enabled\":" + std::to_string(s.enabled) +
               ",\"total\":" + std::to_string(s.total) +
               ",\"opt_in\":" + (s.opt_in ? "true" : "false") +
               ",\"plugin\":" + jsonQuote(s.owner) + "}";
    first = false;
  }
  group_flags += "}";
  summary += "}";

  std::vector<std::string> warnings = state.warnings;
  for (const auto& w : dispatch->admission->compiled().warnings) warnings.push_back(w);

  std::string plugins = "[";
  first = true;
  for (const auto& p : *state.plugins) {
    plugins += std::string(first ? "" : ",") + "{\"name\":" + jsonQuote(p.entry.name) +
               ",\"file\":" + jsonQuote(p.path) + ",\"id\":" + jsonQuote(p.id) +
               ",\"version\":" + jsonQuote(p.version) + ",\"kind\":" + jsonQuote(kindName(p.kind)) +
               ",\"state\":" + jsonQuote(p.state) +
               ",\"required\":" + (p.entry.required ? "true" : "false") +
               ",\"groups\":" + jsonList(p.groups);
    if (p.error)
      plugins += ",\"error\":{\"stage\":" + jsonQuote(p.error->stage) +
                 ",\"message\":" + jsonQuote(p.error->message) + "}";
    plugins += "}";
    first = false;
  }
  plugins += "]";

  return "{\"api_version\":2,\"server_version\":" + jsonQuote(state.server_version) +
         ",\"identity\":{\"id\":" + jsonQuote(caller.id) +
         ",\"scopes\":" + jsonList(caller.scopes) +
         "},\"policy\":{\"preset\":" + jsonQuote(dispatch->admission->compiled().preset) +
         ",\"revision\":" + std::to_string(dispatch->admission->compiled().revision) +
         ",\"sources\":" + jsonList(dispatch->admission->compiled().sources) +
         "},\"groups\":" + group_flags + ",\"group_summary\":" + summary +
         ",\"endpoints\":" + endpoints + ",\"plugins\":" + plugins +
         ",\"warnings\":" + jsonList(warnings) + "}";
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
  const Dispatch* dispatch = state.pipeline->current();
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
  std::string body = decisionJson(decision);
  if (!paths->empty()) {
    std::string each = "[";
    for (std::size_t i = 0; i < paths->size(); ++i) {
      auto d = decide(*dispatch, *route, request.identity, (*paths)[i], *op);
      if (!d.allowed && decision.allowed) decision = d;  // the first denial decides overall
      each += (i ? "," : "") + std::string("{\"path\":") + jsonQuote((*paths)[i]) +
              ",\"allowed\":" + (d.allowed ? "true" : "false") +
              ",\"reason\":" + (d.reason.empty() ? "null" : jsonQuote(d.reason)) + "}";
    }
    each += "]";
    body = decisionJson(decision);
    body.pop_back();
    body += ",\"paths\":" + each + "}";
  }
  return sdk::Response::json(std::move(body));
}

}  // namespace

GroupRecord coreGroup() { return {{"core", false, "health, readiness and discovery"}, "core"}; }

void addCoreRoutes(RouteTable& routes, CoreState& state) {
  static const std::string kHealth = "{\"status\":\"ok\"}";
  sdk::RouteSpec health;
  health.method = "GET";
  health.path = "/health";
  health.endpoint = "health";
  health.group = "core";
  health.summary = "Liveness: always 200";
  health.auth_required = false;
  health.handler = [](const sdk::Request&) { return sdk::Response::json(kHealth); };
  routes.add(std::move(health), "core");

  sdk::RouteSpec ready;
  ready.method = "GET";
  ready.path = "/ready";
  ready.endpoint = "ready";
  ready.group = "core";
  ready.summary = "Readiness: 503 until every plugin started and while draining";
  ready.auth_required = false;
  ready.handler = [&state](const sdk::Request&) {
    switch (state.readiness.load()) {
      case Readiness::ready:
        return sdk::Response::json("{\"status\":\"ready\"}");
      case Readiness::draining:
        return sdk::Response::json("{\"status\":\"draining\"}", 503);
      default:
        return sdk::Response::json("{\"status\":\"starting\"}", 503);
    }
  };
  routes.add(std::move(ready), "core");

  sdk::RouteSpec caps;
  caps.method = "GET";
  caps.path = "/capabilities";
  caps.endpoint = "capabilities";
  caps.group = "core";
  caps.summary = "Groups, endpoints, plugins and the caller's identity";
  caps.handler = [&state](const sdk::Request& r) {
    return sdk::Response::json(capabilities(state, r.identity));
  };
  routes.add(std::move(caps), "core");

  sdk::RouteSpec check_route;
  check_route.method = "POST";
  check_route.path = "/capabilities/check";
  check_route.endpoint = "capabilities_check";
  check_route.group = "core";
  check_route.summary = "The policy decision for a hypothetical call";
  check_route.handler = [&state](const sdk::Request& r) { return check(state, r); };
  routes.add(std::move(check_route), "core");
}

}  // namespace abx::kernel
