// KernelServices: the kernel-owned objects every plugin's HostContext
// exposes. One instance per process; it outlives every plugin.
#pragma once

#include <unistd.h>

#include <functional>
#include <memory>
#include <string>

#include "abx/sdk/secret_redactor.h"
#include "abx/sdk/settings.h"
#include "environment/child_environment_store.h"
#include "metrics/metrics_registry.h"
#include "pipeline/pipeline.h"
#include "policy/base_dir_path_guard.h"
#include "policy/code_toggle.h"
#include "routing/command_registry.h"
#include "routing/service_registry.h"
#include "support/log_sink.h"

namespace abx::kernel {

/** A plugin's secret of 4 bytes or more never reaches a log line. */
inline constexpr std::size_t kMinLoggedSecretLength = 4;

struct KernelServices {
  explicit KernelServices(sdk::HostInfo host_info)
      : info(std::move(host_info)),
        redactor(kMinLoggedSecretLength),
        log(redactor),
        environment(environ),
        default_paths(info.base_dir) {}

  sdk::HostInfo info;
  /** Secrets plugins registered, and token shapes, out of every log line. */
  sdk::SecretRedactor redactor;
  LogSink log;
  CommandRegistry commands;
  ServiceRegistry services;
  ChildEnvironmentStore environment;
  /** What GET /metrics exports; plugins reach it through HostContext::metrics(). */
  MetricsRegistry metrics;
  /** Plugins' enableGroup/disableGroup calls, in order. */
  std::vector<CodeToggle> code_toggles;
  BaseDirPathGuard default_paths;
  /** What plugins get; the server points it at its policy-aware guard. */
  const sdk::PathGuard* paths = &default_paths;
  /** The request pipeline, for authentication and policy lookups outside
   *  HTTP; null until the server sets it (unit tests). */
  const Pipeline* pipeline = nullptr;
  /** The OpenAPI document a caller is offered (HostContext::openApiFor);
   *  unset until the server serves. */
  std::function<std::string(const sdk::Identity&)> openapi;
  /** The server's own directories (its state dir, plugins' private ones):
   *  denied to every endpoint by the PathGuard, whatever the policy says. */
  std::vector<std::string> private_dirs;
};

}  // namespace abx::kernel
