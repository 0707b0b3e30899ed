// The Responses wire's routes (agents spec §6.4, §6.6; openai-wire.md §5):
// POST /v1/responses (JSON, SSE or background), GET /v1/responses/{id}
// (also ?stream=true replays), DELETE /v1/responses/{id},
// POST /v1/responses/{id}/cancel and GET /v1/responses/{id}/input_items
// (GET /v1/models[/{id}] share the context: models_routes.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "abx/sdk/routes.h"
#include "agent_catalog.h"
#include "response_store.h"
#include "runtime/agent_runtime.h"

namespace abx::plugins::agents {

struct ResponsesContext {
  AgentRuntime* runtime = nullptr;
  AgentCatalog* catalog = nullptr;
  ResponseStore* store = nullptr;
  /** How long a cancel waits for the kill ladder before answering. */
  std::chrono::milliseconds cancel_wait{10000};
  /** Unix seconds the group started: a runtime model's `created`. */
  std::int64_t started_at = 0;
};

/** The five routes, group `agents`, scope agents:run. */
sdk::Status addResponsesRoutes(sdk::RouteRegistry& registry,
                               std::shared_ptr<const ResponsesContext> context);

}  // namespace abx::plugins::agents
