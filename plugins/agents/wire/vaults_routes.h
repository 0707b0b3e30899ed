// Vaults and credentials (openai-wire.md §9.1, §9.11; the SDK's
// client.beta.agents.vaults on /v1/vaults/**): create, retrieve, update,
// list, delete for both. Credential secrets are write-only: no reply ever
// carries them, and they also guard the server's log. A vault and its
// credentials are their creator's (ownership.h).
#pragma once

#include <memory>
#include <vector>

#include "abx/sdk/redactor.h"
#include "abx/sdk/routes.h"
#include "vaults/vault_store.h"

namespace abx::plugins::agents {

struct VaultsContext {
  VaultStore* store = nullptr;
  sdk::Redactor* host_redactor = nullptr;
};

sdk::Status addVaultsRoutes(sdk::RouteRegistry& registry,
                            std::shared_ptr<const VaultsContext> context);

}  // namespace abx::plugins::agents
