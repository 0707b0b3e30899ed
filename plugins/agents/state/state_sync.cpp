#include "state/state_sync.h"

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "definition/agent_definition.h"
#include "secrets/secret_bag.h"
#include "state/secret_leaves.h"

namespace abx::plugins::agents {
namespace {

// An AgentRecord back into the catalog's terms; nullopt (with @p where the
// first problem sits) when it no longer reads as a definition.
std::optional<AgentCatalog::Definition> definitionOf(AgentRecord& a, std::string& where) {
  auto parsed = parseAgentDefinitionBody(a.definition);
  if (!parsed.ok() || parsed.spec.name != a.id) {
    where = parsed.ok() ? "name" : parsed.errors.front().path;
    return std::nullopt;
  }
  AgentCatalog::Definition d;
  d.spec = std::move(parsed.spec);
  d.created_at = a.created_at;
  d.updated_at = a.updated_at;
  d.credential_refs = std::move(parsed.credential_refs);
  d.stored.secrets_not_kept = secretsNotKept(a.body);
  d.stored.body = std::move(a.body);
  d.stored.definition = std::move(a.definition);
  d.stored.metadata = std::move(a.metadata);
  d.stored.named = a.named;
  d.stored.model = std::move(a.model);
  d.stored.git_depth = parsed.git_depth;
  return d;
}

}  // namespace

sdk::Result<std::shared_ptr<const SecretSealer>> stateSealer(sdk::HostContext& host) {
  std::string text, source;
  if (auto value = host.takeSecretEnv(kStateKeyVariable); value && !value->empty()) {
    text = std::move(*value);
    source = kStateKeyVariable;
  } else if (auto path = host.settings().path("state_key_file"); path && !path->empty()) {
    // Like ssh with a private key: a key others could read keeps nothing sealed.
    struct stat st {};
    if (::stat(path->c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return sdk::Status::error("state_key_file: " + *path +
                                    " is readable or writable by others (mode " + mode +
                                    "); chmod 600 it",
                                "PermissionError");
    }
    std::ifstream in(*path, std::ios::binary);
    std::stringstream content;
    if (in) content << in.rdbuf();
    if (!in) return sdk::Status::error("state_key_file: cannot read " + *path, "ValueError");
    text = content.str();
    source = "state_key_file (" + *path + ")";
  } else {
    return std::shared_ptr<const SecretSealer>();
  }
  auto key = parseStateKey(text, source);
  if (!key) return key.status();
  return std::shared_ptr<const SecretSealer>(std::make_shared<SecretSealer>(*key));
}

void AgentsStateSync::restore(sdk::Redactor& redactor, std::int64_t now) {
  auto loaded = file_.load(now);
  for (const auto& warning : loaded.warnings) log_.warn("agents: " + warning);
  std::size_t agents_not_kept = 0, credentials_not_kept = 0;
  for (auto& record : loaded.state.agents) {
    std::string where;
    auto kept = record;  // definitionOf() takes the trees
    auto d = definitionOf(record, where);
    if (!d) {
      log_.warn("agents: agent '" + record.id + "' of " + file_.path() +
                " no longer reads as a definition (at '" + where + "'); not restored");
      continue;
    }
    const auto bag = SecretBag::of(d->spec);
    for (const auto& secret : bag.values()) redactor.addSecret(secret);
    if (catalog_.locked()) {
      // Locked, only the config file's definitions run; these wait in the
      // file for a start without the lock.
      kept.secrets = bag.values();
      held_.push_back(std::move(kept));
      continue;
    }
    if (!d->stored.secrets_not_kept.empty()) ++agents_not_kept;
    catalog_.restore(std::move(*d));
  }
  if (!held_.empty())
    log_.info("agents: " + std::to_string(held_.size()) + " HTTP-created definition(s) of " +
              file_.path() +
              " not loaded: definitions are locked (ABX_AGENTS_LOCK_DEFINITIONS=1); the file keeps "
              "them");
  for (const auto& c : loaded.state.credentials) {
    if (c.secret.empty())
      ++credentials_not_kept;
    else
      redactor.addSecret(c.secret);
  }
  vaults_.restore(std::move(loaded.state.vaults), std::move(loaded.state.credentials));
  if (agents_not_kept + credentials_not_kept > 0)
    log_.warn("agents: " + std::to_string(agents_not_kept) + " agent definition(s) and " +
              std::to_string(credentials_not_kept) +
              " vault credential(s) came back without their secret (no state key when they were "
              "saved, or another one now); their turns fail until the secret is sent again. Set " +
              kStateKeyVariable + " or state_key_file to keep secrets across restarts.");
}

void AgentsStateSync::save() {
  std::lock_guard lock(mutex_);
  AgentsState state;
  for (auto& d : catalog_.definitions()) {
    // Config-file definitions come from their file at every start.
    if (d.stored.body.kind != ConfigValue::Kind::object) continue;
    AgentRecord a;
    a.id = d.spec.name;
    a.created_at = d.created_at;
    a.updated_at = d.updated_at;
    a.secrets = SecretBag::of(d.spec).values();
    a.body = std::move(d.stored.body);
    a.definition = std::move(d.stored.definition);
    a.metadata = std::move(d.stored.metadata);
    a.named = d.stored.named;
    a.model = std::move(d.stored.model);
    state.agents.push_back(std::move(a));
  }
  state.agents.insert(state.agents.end(), held_.begin(), held_.end());
  state.vaults = vaults_.vaults();
  state.credentials = vaults_.allCredentials();
  if (auto s = file_.save(state); !s) log_.warn("agents: " + s.message());
}

}  // namespace abx::plugins::agents
