// The models of the OpenAI wire (GET /v1/models[/{id}]): every agent
// definition and runtime a request may name as its `model`.
#pragma once

#include <memory>

#include "abx/sdk/routes.h"
#include "responses_routes.h"

namespace abx::plugins::agents {

/** The two routes, group `agents`, scope agents:run. */
sdk::Status addModelsRoutes(sdk::RouteRegistry& registry,
                            std::shared_ptr<const ResponsesContext> context);

}  // namespace abx::plugins::agents
