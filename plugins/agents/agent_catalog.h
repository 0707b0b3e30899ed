// AgentCatalog: what a `model` (or an agent name) means — a definition from
// ABX_AGENTS_CONFIG, else an adapter's name or alias (an ephemeral default
// agent for that runtime). Adapters are looked up in the host's service
// registry (abx.agent_adapter.v1) when asked, so adapter plugins loaded
// after this one are found.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/services.h"
#include "definition/config_tree.h"
#include "definition/credential_ref.h"
#include "runtime/agent_runtime.h"

namespace abx::plugins::agents {

/** What the Agents wire keeps of a definition it registered, for its Agent object and merges. */
struct StoredAgent {
  /** The request body as merged so far (SDK fields and extensions, secrets
   *  included, memory only); null for a config-file definition. */
  ConfigValue body;
  std::map<std::string, std::string> metadata;
  bool named = true; /**< false: the server chose the id; the Agent's name is null */
  std::string model; /**< as requested; "" when none was */
  /** @ref body in the definition schema (what agents_state.json restores from). */
  ConfigValue definition;
  /** Paths of @ref body whose secret a restart without a state key lost
   *  (state/secret_leaves.h): the agent's turns fail until it is sent again. */
  std::vector<std::string> secrets_not_kept;
  /** workspace.git.depth of the definition (DefinitionResult::git_depth). */
  int git_depth = 1;
};

/** THREAD: safe. */
class AgentCatalog {
 public:
  /** @p allow_extra_args false (ABX_AGENTS_ALLOW_COMMAND=0): agents with extra_args are refused. */
  /** @p credentials resolves the definitions' credential references (vaults). */
  AgentCatalog(const sdk::ServiceRegistry& services, bool allow_extra_args = true,
               CredentialLookup credentials = {})
      : services_(services),
        allow_extra_args_(allow_extra_args),
        credentials_(std::move(credentials)) {}

  using CredentialRefs = std::map<std::string, std::vector<CredentialRef>>;
  /** Replaces the definitions (already validated); @p refs by agent name. */
  /** @p git_depths: by name, workspace.git.depth where it is not 1. */
  void setDefinitions(std::vector<sdk::agents::AgentSpec> specs, CredentialRefs refs = {},
                      const std::map<std::string, int>& git_depths = {});

  using Stored = StoredAgent;
  struct Definition {
    sdk::agents::AgentSpec spec; /**< referenced credentials unresolved (empty) */
    std::int64_t created_at = 0;
    std::int64_t updated_at = 0;
    std::vector<CredentialRef> credential_refs;
    Stored stored;
    /** The model its Agent object shows: as requested, else the definition's, else the runtime. */
    const std::string& shownModel() const {
      return !stored.model.empty() ? stored.model : spec.model.empty() ? spec.runtime : spec.model;
    }
  };
  /** Adds or replaces one definition (already validated) at @p now. */
  void put(sdk::agents::AgentSpec spec, std::int64_t now, std::vector<CredentialRef> refs = {},
           Stored stored = {});
  bool erase(const std::string& name);
  /** A definition read back from agents_state.json, with its own times (no onChange call). */
  void restore(Definition definition);
  /** Called after every put() and erase(), outside the lock: agents_state.json follows.
   *  Set once, before the routes exist. */
  void onChange(std::function<void()> listener) { on_change_ = std::move(listener); }
  std::optional<Definition> definition(const std::string& name) const;
  /** Oldest first. */
  std::vector<Definition> definitions() const;

  /**
   * The agent @p name names, or nullptr with @p why ("The model 'x' does not
   * exist."; locked: a runtime's name is refused the same way). Credential
   * references are resolved now, on every call: the runtime calls this at
   * turn start.
   */
  std::shared_ptr<const ResolvedAgent> resolve(const std::string& name, std::string& why) const;
  /** Every usable model id: definitions, then adapter names (unless locked). */
  std::vector<std::string> models() const;
  /**
   * ABX_AGENTS_LOCK_DEFINITIONS=1: from now on only definitions resolve (no
   * ephemeral default agent of a runtime) and models() lists only them.
   */
  void lockToDefinitions(bool locked) { locked_ = locked; }
  bool locked() const { return locked_; }
  /** The adapter called @p runtime (name or alias), or nullptr. */
  const sdk::agents::AgentAdapter* adapter(const std::string& runtime) const;

 private:
  /** put() and restore(): @p created nullopt keeps the earlier creation time, if any. */
  void insert(sdk::agents::AgentSpec spec, std::optional<std::int64_t> created,
              std::int64_t updated, std::vector<CredentialRef> refs, Stored stored);
  Definition definitionLocked(const std::string& name, const ResolvedAgent& agent) const;

  const sdk::ServiceRegistry& services_;
  const bool allow_extra_args_;
  const CredentialLookup credentials_;
  std::atomic<bool> locked_{false};
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ResolvedAgent>> definitions_;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> times_;  // created, updated
  CredentialRefs refs_;
  std::map<std::string, Stored> stored_;
  mutable std::map<std::string, std::shared_ptr<const ResolvedAgent>> defaults_;
  std::function<void()> on_change_;
};

}  // namespace abx::plugins::agents
