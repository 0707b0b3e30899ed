// The core group, the only group the kernel itself serves: GET /health,
// GET /ready, GET /capabilities, POST /capabilities/check, GET /openapi.json,
// GET /audit/recent, GET /metrics. It cannot be disabled.
#pragma once

#include <atomic>
#include <deque>
#include <string>
#include <vector>

#include "abx/sdk/json.h"
#include "core/policy_decision.h"
#include "loader/plugin_loader.h"
#include "metrics/metrics_registry.h"
#include "openapi/openapi_on_demand.h"
#include "pipeline/admission.h"
#include "pipeline/audit_ring.h"
#include "pipeline/pipeline.h"
#include "routing/route_table.h"

namespace abx::kernel {

enum class Readiness { starting, ready, draining };

/** What the core endpoints read. LIFETIME: the process. */
struct CoreState {
  const Pipeline* pipeline = nullptr;
  std::atomic<Readiness> readiness{Readiness::starting};
  const std::deque<PluginRecord>* plugins = nullptr;
  const std::vector<GroupRecord>* groups = nullptr;
  /** What GET /metrics renders; null: the route answers an empty exposition. */
  const MetricsRegistry* metrics = nullptr;
  std::string server_version;
  std::vector<std::string> warnings;
  /** The loaded plugins' OpenAPI fragments (GET /openapi.json). */
  const OnDemandOpenApiCatalog* openapi = nullptr;
  /** The newest audit records (GET /audit/recent); null: no such route. */
  const AuditRing* audit = nullptr;
};

/** A route, its effective rule and the verdict for one caller: what GET
 *  /capabilities lists, and what GET /openapi.json keeps (offered()). */
struct EndpointView {
  const Route* route = nullptr;
  const sdk::EndpointPolicy* policy = nullptr;
  PolicyDecision decision;
  bool offered() const { return policy->enabled && decision.allowed; }
};
std::vector<EndpointView> endpointViews(const Dispatch& dispatch, const sdk::Identity& caller);

/** The OpenAPI document of the endpoints offered to @p caller; @p server_url
 *  is its `servers` entry. */
std::string openApiFor(const CoreState& state, const sdk::Identity& caller,
                       const std::string& server_url);

/** The core group's record (declared by the kernel, never opt-in). */
GroupRecord coreGroup();

/** A plugin's load error, {"stage", "message"}: /capabilities and `plugins --json` show it. */
void writeLoadError(sdk::JsonWriter& w, const LoadError& error);

/** Registers the core routes into @p routes (GET /audit/recent with an AuditRing). */
void addCoreRoutes(RouteTable& routes, CoreState& state);

}  // namespace abx::kernel
