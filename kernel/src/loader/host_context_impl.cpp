#include "loader/host_context_impl.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "environment/secret_environment.h"
#include "pipeline/local_exchange.h"
#include "support/request_id.h"

namespace abx::kernel {

HostContextImpl::HostContextImpl(KernelServices& services, std::string plugin_id,
                                 sdk::Settings settings, RouteTable& routes,
                                 std::vector<GroupRecord>& groups)
    : services_(services),
      plugin_id_(std::move(plugin_id)),
      settings_(std::move(settings)),
      routes_(routes),
      groups_(groups),
      logger_(services.log, plugin_id_),
      metrics_(services.metrics, plugin_id_, logger_) {}

sdk::Status HostContextImpl::closed(std::string_view what) const {
  return sdk::Status::error(
      plugin_id_ + ": " + std::string(what) + " is accepted only during Plugin::start()",
      "RuntimeError");
}

sdk::Status HostContextImpl::declareGroup(const sdk::GroupSpec& group) {
  if (!registering_) return closed("declareGroup");
  bool valid = !group.name.empty() && std::all_of(group.name.begin(), group.name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!valid)
    return sdk::Status::error("group name must be [a-z0-9_]+, got '" + group.name + "'",
                              "ValueError");
  for (const auto& g : groups_)
    if (g.spec.name == group.name)
      return sdk::Status::error("group '" + group.name + "' is already declared by " + g.owner,
                                "ValueError");
  groups_.push_back({group, plugin_id_});
  declared_.push_back(group.name);
  return sdk::Status::ok();
}

sdk::Status HostContextImpl::add(sdk::RouteSpec route) {
  if (!registering_) return closed("route registration");
  if (std::find(declared_.begin(), declared_.end(), route.group) == declared_.end())
    return sdk::Status::error("route " + route.endpoint + ": group '" + route.group +
                                  "' was not declared by " + plugin_id_,
                              "ValueError");
  return routes_.add(std::move(route), plugin_id_);
}

sdk::Status HostContextImpl::enableGroup(std::string_view group) {
  if (!registering_) return closed("enableGroup");
  services_.code_toggles.push_back({std::string(group), true, plugin_id_});
  return sdk::Status::ok();
}

sdk::Status HostContextImpl::disableGroup(std::string_view group) {
  if (!registering_) return closed("disableGroup");
  if (group == "core") return sdk::Status::error("the core group cannot be disabled", "ValueError");
  services_.code_toggles.push_back({std::string(group), false, plugin_id_});
  return sdk::Status::ok();
}

sdk::Result<sdk::Identity> HostContextImpl::authenticate(
    const std::vector<std::pair<std::string, std::string>>& headers) const {
  const auto dispatch = services_.pipeline ? services_.pipeline->current() : nullptr;
  if (!dispatch) return sdk::Status::error("unauthorized", "AuthError");
  auto outcome = dispatch->auth->authenticate(headers);
  if (auto* error = std::get_if<ApiError>(&outcome))
    return sdk::Status::error(error->message, "AuthError");
  return std::get<sdk::Identity>(outcome);
}

std::optional<sdk::EndpointPolicy> HostContextImpl::endpointPolicy(
    std::string_view endpoint) const {
  const auto dispatch = services_.pipeline ? services_.pipeline->current() : nullptr;
  if (!dispatch) return std::nullopt;
  const Route* route = dispatch->routes->findEndpoint(endpoint);
  if (!route) return std::nullopt;
  return dispatch->admission->policy(*route);  // a copy: the dispatch may go after the call
}

sdk::Admission HostContextImpl::admit(const sdk::AdmissionRequest& request) {
  if (!services_.pipeline) {
    sdk::Admission refused;
    refused.status = 503;
    refused.body = R"({"error":"the server is not serving yet","type":"RuntimeError"})";
    return refused;
  }
  return services_.pipeline->admitOutside(request);
}

sdk::Response HostContextImpl::call(const sdk::LocalCall& call) {
  const auto dispatch = services_.pipeline ? services_.pipeline->current() : nullptr;
  if (!dispatch) return sdk::Response::error(503, "the server is not serving yet", "RuntimeError");
  const Route* route = dispatch->routes->findEndpoint(call.endpoint);
  if (!route)
    return sdk::Response::error(404, "Unknown endpoint '" + call.endpoint + "'", "ValueError",
                                "unknown_endpoint");
  auto target = localTarget(*route, call);
  if (!target)
    return sdk::Response::error(400, "Missing a path parameter of " + route->spec.path,
                                "ValueError", "missing_parameter");
  sdk::LocalCall tagged = call;
  // The in-process request carries the outer request's id, so its audit
  // record and log lines are found with the call that caused them.
  if (auto id = currentRequestId(); !id.empty())
    tagged.headers.emplace_back("x-request-id", std::string(id));
  LocalExchange exchange(tagged, route->spec.method, *target);
  services_.pipeline->handleAs(exchange, call.identity);
  return exchange.take();
}

std::string HostContextImpl::openApiFor(const sdk::Identity& caller) const {
  return services_.openapi ? services_.openapi(caller) : std::string();
}

sdk::Status HostContextImpl::privateDirectory(std::string_view dir) {
  if (!registering_) return closed("privateDirectory");
  if (!dir.starts_with('/'))
    return sdk::Status::error(
        "privateDirectory needs an absolute path, got '" + std::string(dir) + "'", "ValueError");
  std::error_code ec;
  auto real = std::filesystem::weakly_canonical(std::string(dir), ec);
  services_.private_dirs.push_back(ec ? std::string(dir) : real.string());
  return sdk::Status::ok();
}

std::optional<std::string> HostContextImpl::takeSecretEnv(std::string_view name) {
  std::string key(name);
  auto value = SecretEnvironment::instance().takeSecret(key);
  services_.environment.protect({key});
  if (value && !value->empty()) services_.redactor.addSecret(*value);
  return value;
}

sdk::Status HostContextImpl::add(sdk::CommandSpec command) {
  if (!registering_) return closed("command registration");
  return services_.commands.add(std::move(command));
}

std::vector<const sdk::CommandSpec*> HostContextImpl::list() const {
  return services_.commands.list();
}

const sdk::CommandSpec* HostContextImpl::find(std::string_view name) const {
  return services_.commands.find(name);
}

sdk::Status HostContextImpl::provideRaw(std::string_view service_id, std::string_view name,
                                        void* instance) {
  if (!registering_) return closed("provide");
  return services_.services.provideRaw(service_id, name, instance);
}

void* HostContextImpl::findRaw(std::string_view service_id, std::string_view name) const {
  return services_.services.findRaw(service_id, name);
}

std::vector<std::pair<std::string, void*>> HostContextImpl::allRaw(
    std::string_view service_id) const {
  return services_.services.allRaw(service_id);
}

}  // namespace abx::kernel
