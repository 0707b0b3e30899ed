#include "core/core_endpoints.h"

#include <filesystem>
#include <map>

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
  for (const auto& route : dispatch->routes.routes()) {
    const auto& spec = route->spec;
    auto st = dispatch->admission->state(*route);
    bool allowed = st.enabled && !checkScopes(*route, caller);
    auto& s = groups[spec.group];
    ++s.total;
    if (st.enabled) ++s.enabled;
    endpoints += (first ? "" : ",") + jsonQuote(spec.endpoint) +
                 ":{\"method\":" + jsonQuote(spec.method) + ",\"path\":" + jsonQuote(spec.path) +
                 ",\"group\":" + jsonQuote(spec.group) + ",\"summary\":" + jsonQuote(spec.summary) +
                 ",\"streaming\":" + (spec.streaming ? "true" : "false") +
                 ",\"auth_required\":" + (spec.auth_required ? "true" : "false") +
                 ",\"enabled\":" + (st.enabled ? "true" : "false") +
                 ",\"allowed\":" + (allowed ? "true" : "false") +
                 ",\"rule\":" + jsonQuote(st.rule) + ",\"scopes\":" + jsonList(spec.scopes) +
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
         "},\"policy\":{\"preset\":\"default\",\"revision\":0},\"groups\":" + group_flags +
         ",\"group_summary\":" + summary + ",\"endpoints\":" + endpoints +
         ",\"plugins\":" + plugins + ",\"warnings\":" + jsonList(state.warnings) + "}";
}

// Policy-only: the path is judged lexically, never looked up on disk, so the
// check cannot be used to learn whether a path exists.
std::string lexicalPathVerdict(const std::string& base, const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base) / p;
  auto norm = p.lexically_normal().string();
  auto within = [&](const std::string& root) {
    return norm == root ||
           (norm.starts_with(root) && norm.size() > root.size() && norm[root.size()] == '/');
  };
  if (within("/proc") || within("/sys") || within("/dev")) return "path_denied";
  if (norm == "/" || !within(base)) return "path_not_allowed";
  return "";
}

sdk::Response check(const CoreState& state, const sdk::Request& request) {
  auto endpoint = request.json.string("endpoint");
  if (!endpoint) return sdk::Response::error(400, endpoint.status().message(), "ValueError");
  auto path = request.json.string("path", std::string());
  if (!path) return sdk::Response::error(400, path.status().message(), "ValueError");
  const Dispatch* dispatch = state.pipeline->current();
  const Route* route = dispatch->routes.findEndpoint(*endpoint);
  if (!route) {
    std::vector<std::string> ids;
    for (const auto& r : dispatch->routes.routes()) ids.push_back(r->spec.endpoint);
    return sdk::Response::error(400,
                                "Unknown endpoint '" + *endpoint + "'" + didYouMean(*endpoint, ids),
                                "ValueError", "unknown_endpoint");
  }
  auto st = dispatch->admission->state(*route);
  auto denied = dispatch->admission->admit(*route, request.identity);
  std::string reason = denied ? denied->code : "";
  std::string path_verdict;
  if (!path->empty()) path_verdict = lexicalPathVerdict(state.base_dir, *path);
  bool allowed = !denied && path_verdict.empty();
  if (!denied && !path_verdict.empty()) reason = path_verdict;
  std::string body =
      "{\"endpoint\":" + jsonQuote(*endpoint) + ",\"enabled\":" + (st.enabled ? "true" : "false") +
      ",\"allowed\":" + (allowed ? "true" : "false") + ",\"rule\":" + jsonQuote(st.rule) +
      ",\"reason\":" + (reason.empty() ? "null" : jsonQuote(reason)) +
      ",\"scopes\":" + jsonList(route->spec.scopes) + "}";
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
