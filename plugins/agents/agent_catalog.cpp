#include "agent_catalog.h"

#include <algorithm>

#include "secret_redaction.h"

namespace abx::plugins::agents {
namespace {

std::string secretsNotKeptMessage(const std::string& name, const std::vector<std::string>& paths) {
  std::string list;
  for (const auto& path : paths) list += (list.empty() ? "" : ", ") + path;
  return "Agent '" + name + "' has no secret for " + list +
         ": the server did not keep it across a restart (it has no state key; set "
         "ABX_AGENTS_STATE_KEY or the agents setting state_key_file to keep secrets). Send the "
         "secret again with POST /v1/agents/" +
         name + ".";
}

}  // namespace

void AgentCatalog::setDefinitions(std::vector<sdk::agents::AgentSpec> specs, CredentialRefs refs,
                                  const std::map<std::string, int>& git_depths) {
  std::map<std::string, std::shared_ptr<const ResolvedAgent>> next;
  for (auto& spec : specs) {
    auto agent = std::make_shared<ResolvedAgent>();
    if (auto depth = git_depths.find(spec.name); depth != git_depths.end())
      agent->git_depth = depth->second;
    agent->redaction = redactionFor(spec);
    agent->spec = std::move(spec);
    next[agent->spec.name] = std::move(agent);
  }
  std::lock_guard lock(mutex_);
  definitions_ = std::move(next);
  refs_ = std::move(refs);
  stored_.clear();
  times_.clear();
  for (const auto& [name, agent] : definitions_) times_[name] = {0, 0};
}

void AgentCatalog::put(sdk::agents::AgentSpec spec, std::int64_t now,
                       std::vector<CredentialRef> refs, Stored stored) {
  insert(std::move(spec), std::nullopt, now, std::move(refs), std::move(stored));
  if (on_change_) on_change_();
}

void AgentCatalog::restore(Definition d) {
  insert(std::move(d.spec), d.created_at, d.updated_at, std::move(d.credential_refs),
         std::move(d.stored));
}

void AgentCatalog::insert(sdk::agents::AgentSpec spec, std::optional<std::int64_t> created,
                          std::int64_t updated, std::vector<CredentialRef> refs, Stored stored) {
  auto agent = std::make_shared<ResolvedAgent>();
  agent->redaction = redactionFor(spec);
  agent->spec = std::move(spec);
  agent->git_depth = stored.git_depth;
  std::lock_guard lock(mutex_);
  const auto& name = agent->spec.name;
  auto times = times_.find(name);
  if (!created) created = times == times_.end() ? updated : times->second.first;
  times_[name] = {*created, updated};
  if (refs.empty())
    refs_.erase(name);
  else
    refs_[name] = std::move(refs);
  stored_[name] = std::move(stored);
  definitions_[name] = std::move(agent);
}

bool AgentCatalog::erase(const std::string& name) {
  bool erased = false;
  {
    std::lock_guard lock(mutex_);
    times_.erase(name);
    refs_.erase(name);
    stored_.erase(name);
    erased = definitions_.erase(name) > 0;
  }
  if (erased && on_change_) on_change_();
  return erased;
}

std::optional<AgentCatalog::Definition> AgentCatalog::definition(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = definitions_.find(name);
  if (it == definitions_.end()) return std::nullopt;
  return definitionLocked(name, *it->second);
}

AgentCatalog::Definition AgentCatalog::definitionLocked(const std::string& name,
                                                        const ResolvedAgent& agent) const {
  const auto& times = times_.at(name);
  auto refs = refs_.find(name);
  auto stored = stored_.find(name);
  Definition out{agent.spec, times.first, times.second,
                 refs == refs_.end() ? std::vector<CredentialRef>{} : refs->second,
                 stored == stored_.end() ? Stored{} : stored->second};
  out.stored.git_depth = agent.git_depth;
  return out;
}

std::vector<AgentCatalog::Definition> AgentCatalog::definitions() const {
  std::vector<Definition> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, agent] : definitions_) out.push_back(definitionLocked(name, *agent));
  }
  std::stable_sort(out.begin(), out.end(), [](const Definition& a, const Definition& b) {
    return a.created_at < b.created_at;
  });
  return out;
}

const sdk::agents::AgentAdapter* AgentCatalog::adapter(const std::string& runtime) const {
  for (const auto& [name, adapter] : services_.all<sdk::agents::AgentAdapter>()) {
    if (adapter->name() == runtime) return adapter;
    auto aliases = adapter->aliases();
    if (std::find(aliases.begin(), aliases.end(), runtime) != aliases.end()) return adapter;
  }
  return nullptr;
}

std::shared_ptr<const ResolvedAgent> AgentCatalog::resolve(const std::string& name,
                                                           std::string& why) const {
  std::shared_ptr<const ResolvedAgent> base;
  std::vector<CredentialRef> refs;
  std::vector<std::string> not_kept;
  {
    std::lock_guard lock(mutex_);
    if (auto it = definitions_.find(name); it != definitions_.end()) base = it->second;
    if (auto it = refs_.find(name); base && it != refs_.end()) refs = it->second;
    if (auto it = stored_.find(name); base && it != stored_.end())
      not_kept = it->second.secrets_not_kept;
  }
  if (base && !not_kept.empty()) {
    why = secretsNotKeptMessage(name, not_kept);
    return nullptr;
  }
  if (base) {
    if (!allow_extra_args_ && !base->spec.extra_args.empty()) {
      why = "Agent '" + name +
            "' uses extra_args, which this server disables "
            "(ABX_AGENTS_ALLOW_COMMAND=0).";
      return nullptr;
    }
    // The adapter is looked up on every use: an adapter plugin that is gone
    // (ABX_AGENTS_ALLOW_COMMAND=0, say) makes the agent unusable, not stale.
    auto adapter_ptr = adapter(base->spec.runtime);
    if (!adapter_ptr) {
      why = "The runtime '" + base->spec.runtime + "' of agent '" + name + "' is not available.";
      return nullptr;
    }
    if (adapter_ptr == base->adapter && refs.empty()) return base;
    auto resolved = std::make_shared<ResolvedAgent>(*base);
    resolved->adapter = adapter_ptr;
    if (!refs.empty()) {
      if (auto error = applyCredentialRefs(resolved->spec, refs, credentials_)) {
        why = *error;
        return nullptr;
      }
      resolved->redaction = redactionFor(resolved->spec);
    }
    return resolved;
  }
  if (locked_) {
    why = "The model '" + name +
          "' is not a configured agent; this server runs only its configured definitions "
          "(ABX_AGENTS_LOCK_DEFINITIONS=1).";
    return nullptr;
  }
  auto adapter_ptr = adapter(name);
  // `command` needs a definition: there is no command line to run by default.
  if (!adapter_ptr || adapter_ptr->binary().empty()) {
    why = "The model '" + name + "' does not exist.";
    return nullptr;
  }
  std::lock_guard lock(mutex_);
  auto& slot = defaults_[name];
  if (!slot || slot->adapter != adapter_ptr) {
    auto agent = std::make_shared<ResolvedAgent>();
    agent->spec.name = name;
    agent->spec.runtime = adapter_ptr->name();
    agent->adapter = adapter_ptr;
    agent->redaction = redactionFor(agent->spec);
    slot = std::move(agent);
  }
  return slot;
}

std::vector<std::string> AgentCatalog::models() const {
  std::vector<std::string> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, agent] : definitions_) out.push_back(name);
  }
  if (locked_) return out;
  for (const auto& [name, adapter] : services_.all<sdk::agents::AgentAdapter>())
    if (!adapter->binary().empty() &&
        std::find(out.begin(), out.end(), adapter->name()) == out.end())
      out.push_back(adapter->name());
  return out;
}

}  // namespace abx::plugins::agents
