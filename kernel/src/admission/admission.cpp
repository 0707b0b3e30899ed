#include "admission/admission.h"

#include <algorithm>

#include "text/did_you_mean.h"

namespace abx::kernel {

DefaultAdmission::DefaultAdmission(const RouteTable& routes, const std::vector<GroupRecord>& groups,
                                   const std::vector<std::string>& enabled_groups) {
  states_.resize(routes.size());
  for (const auto& route : routes.routes()) {
    const auto& group = route->spec.group;
    auto& state = states_[route->index];
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupRecord& g) { return g.spec.name == group; });
    bool opt_in = it != groups.end() && it->spec.opt_in && group != "core";
    bool env_on =
        std::find(enabled_groups.begin(), enabled_groups.end(), group) != enabled_groups.end();
    if (opt_in && env_on) {
      state = {true, "env:ABX_SERVER_ENABLED_GROUPS"};
    } else if (opt_in) {
      state = {false, "default:opt-in:" + group};
    } else {
      state = {true, "default:" + group};
    }
  }
}

std::optional<ApiError> checkScopes(const Route& route, const sdk::Identity& caller) {
  for (const auto& scope : route.spec.scopes) {
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

std::optional<ApiError> DefaultAdmission::admit(const Route& route,
                                                const sdk::Identity& caller) const {
  const auto& state = states_[route.index];
  if (!state.enabled) {
    ApiError e;
    e.status = 404;
    e.message = "Endpoint '" + route.spec.endpoint + "' is disabled";
    e.type = "PolicyError";
    e.code = "endpoint_disabled";
    e.fields = {{"endpoint", route.spec.endpoint}, {"rule", state.rule}};
    return e;
  }
  return checkScopes(route, caller);
}

EndpointState DefaultAdmission::state(const Route& route) const { return states_[route.index]; }

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
