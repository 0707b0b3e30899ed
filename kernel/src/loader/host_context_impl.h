// HostContextImpl: the HostContext one plugin gets. Registration (routes,
// groups, commands, services) is accepted only while the kernel runs that
// plugin's start(); afterwards every registration call fails.
#pragma once

#include <string>
#include <vector>

#include "abx/sdk/host_context.h"
#include "loader/kernel_services.h"
#include "pipeline/admission.h"
#include "routing/route_table.h"

namespace abx::kernel {

class HostContextImpl final : public sdk::HostContext,
                              private sdk::RouteRegistry,
                              private sdk::CommandRegistry,
                              private sdk::ServiceRegistry {
 public:
  HostContextImpl(KernelServices& services, std::string plugin_id, sdk::Settings settings,
                  RouteTable& routes, std::vector<GroupRecord>& groups);

  /** Opens or closes the registration window. */
  void setRegistering(bool open) { registering_ = open; }
  const std::vector<std::string>& declaredGroups() const { return declared_; }

  sdk::Logger& log() override { return logger_; }
  sdk::RouteRegistry& routes() override { return *this; }
  sdk::CommandRegistry& commands() override { return *this; }
  sdk::ServiceRegistry& services() override { return *this; }
  const sdk::Settings& settings() const override { return settings_; }
  const sdk::PathGuard& paths() const override { return *services_.paths; }
  sdk::Redactor& redactor() override { return services_.redactor; }
  const sdk::HostInfo& info() const override { return services_.info; }
  sdk::ChildEnvironment& environment() override { return services_.environment; }
  sdk::Result<sdk::Identity> authenticate(
      const std::vector<std::pair<std::string, std::string>>& headers) const override;
  std::optional<sdk::EndpointPolicy> endpointPolicy(std::string_view endpoint) const override;
  sdk::Admission admit(const sdk::AdmissionRequest& request) override;
  sdk::Status privateDirectory(std::string_view dir) override;
  std::optional<std::string> takeSecretEnv(std::string_view name) override;
  sdk::Metrics& metrics() override { return metrics_; }
  sdk::Response call(const sdk::LocalCall& call) override;
  std::string openApiFor(const sdk::Identity& caller) const override;
  /** Forgets the plugin's callback gauges (before it stops). */
  void dropMetricCallbacks() { services_.metrics.dropCallbacks(plugin_id_); }

 private:
  // sdk::RouteRegistry
  sdk::Status declareGroup(const sdk::GroupSpec& group) override;
  sdk::Status add(sdk::RouteSpec route) override;
  sdk::Status enableGroup(std::string_view group) override;
  sdk::Status disableGroup(std::string_view group) override;
  // sdk::CommandRegistry
  sdk::Status add(sdk::CommandSpec command) override;
  std::vector<const sdk::CommandSpec*> list() const override;
  const sdk::CommandSpec* find(std::string_view name) const override;
  // sdk::ServiceRegistry
  sdk::Status provideRaw(std::string_view service_id, std::string_view name,
                         void* instance) override;
  void* findRaw(std::string_view service_id, std::string_view name) const override;
  std::vector<std::pair<std::string, void*>> allRaw(std::string_view service_id) const override;

  sdk::Status closed(std::string_view what) const;

  KernelServices& services_;
  std::string plugin_id_;
  sdk::Settings settings_;
  RouteTable& routes_;
  std::vector<GroupRecord>& groups_;
  std::vector<std::string> declared_;
  PluginLogger logger_;
  OwnedMetrics metrics_;
  bool registering_ = false;
};

}  // namespace abx::kernel
