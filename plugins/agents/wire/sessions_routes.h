// The Agents wire's session routes (agents spec §6.3–§6.6, openai-wire.md
// §9.1, §9.3–§9.10): /v1/agents/sessions create (optionally streaming),
// retrieve, update, list, delete; POST …/events (input message, cancel;
// Idempotency-Key per session) and GET …/events (live tail, Last-Event-ID /
// ?after= replay, at most 32 subscribers); turns, turn items, session items.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abx/sdk/routes.h"
#include "agent_catalog.h"
#include "runtime/agent_runtime.h"
#include "session_memory.h"
#include "session_stream.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

struct SessionsContext {
  AgentRuntime* runtime = nullptr;
  AgentCatalog* catalog = nullptr;
  SessionStreams* streams = nullptr;
  SessionKeys* keys = nullptr;
  VaultStore* vaults = nullptr;
  SessionOverridesStore* overrides = nullptr;
};

sdk::Status addSessionsRoutes(sdk::RouteRegistry& registry,
                              std::shared_ptr<const SessionsContext> context);

}  // namespace abx::plugins::agents
