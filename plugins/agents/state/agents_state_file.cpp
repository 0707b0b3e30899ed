#include "state/agents_state_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "abx/sdk/json.h"
#include "json_fields.h"
#include "state/atomic_write.h"
#include "state/secret_leaves.h"

namespace abx::plugins::agents {
namespace {

constexpr std::int64_t kVersion = 1;
constexpr std::string_view kKeyCheck = "agents_state";

// What a sealed value is bound to: its record and place, so a value moved
// to another record or field does not open. Ids and pointers hold no '\n'
// that could make two bindings read the same (names and ids are checked).
std::string agentBinding(const std::string& id, std::string_view tree, const std::string& pointer) {
  return "agent\n" + id + "\n" + std::string(tree) + "\n" + pointer;
}
std::string credentialBinding(const Credential& c) {
  return "credential\n" + c.vault_id + "\n" + c.id;
}

std::int64_t integerOf(const sdk::Json& v) {
  auto n = v.asInteger(0);
  return n ? *n : 0;
}

void writeAgent(sdk::JsonWriter& w, const AgentRecord& a, const SecretSealer* sealer) {
  ConfigValue body = a.body, definition = a.definition;
  const auto body_leaves = takeSecretLeaves(body, a.secrets);
  const auto definition_leaves = takeSecretLeaves(definition, a.secrets);
  w.beginObject().member("id", a.id).member("created_at", a.created_at);
  w.member("updated_at", a.updated_at).member("named", a.named).member("model", a.model);
  w.key("metadata");
  writeTextMap(w, a.metadata);
  w.key("body");
  writeConfigValue(w, body);
  w.key("definition");
  writeConfigValue(w, definition);
  w.key("sealed").beginArray();
  if (sealer)
    for (const auto& [tree, leaves] :
         {std::pair{"body", &body_leaves}, std::pair{"definition", &definition_leaves}})
      for (const auto& leaf : *leaves)
        w.beginObject()
            .member("tree", tree)
            .member("pointer", leaf.pointer)
            .member("value", sealer->seal(leaf.value, agentBinding(a.id, tree, leaf.pointer)))
            .endObject();
  w.endArray().endObject();
}

void writeCredential(sdk::JsonWriter& w, const Credential& c, const SecretSealer* sealer) {
  w.beginObject().member("id", c.id).member("vault_id", c.vault_id).member("name", c.name);
  w.member("created_at", c.created_at).member("updated_at", c.updated_at).key("metadata");
  writeTextMap(w, c.metadata);
  w.member("type", c.type).member("secret_name", c.secret_name);
  w.member("mcp_server_url", c.mcp_server_url).key("networking").raw(c.networking_json);
  if (sealer && !c.secret.empty()) w.member("secret", sealer->seal(c.secret, credentialBinding(c)));
  w.endObject();
}

// Counts of what a load found, for its warnings.
struct Opened {
  std::size_t sealed = 0;   /**< sealed values in the file */
  std::size_t unopened = 0; /**< of those, the ones that did not open */
};

AgentRecord agentFrom(const sdk::Json& o, const SecretSealer* sealer, Opened& opened) {
  AgentRecord a;
  a.id = textOf(o.get("id"));
  a.created_at = integerOf(o.get("created_at"));
  a.updated_at = integerOf(o.get("updated_at"));
  auto named = o.get("named").asBoolean(true);
  a.named = !named || *named;
  a.model = textOf(o.get("model"));
  a.metadata = textMap(o.get("metadata"));
  a.body = configFromJson(o.get("body"));
  a.definition = configFromJson(o.get("definition"));
  for (const auto& s : o.get("sealed").elements()) {
    ++opened.sealed;
    const auto tree = textOf(s.get("tree"));
    const auto pointer = textOf(s.get("pointer"));
    auto plain = sealer ? sealer->open(textOf(s.get("value")), agentBinding(a.id, tree, pointer))
                        : std::nullopt;
    ConfigValue* target = tree == "body" ? &a.body : tree == "definition" ? &a.definition : nullptr;
    if (!plain || !target || !putSecretLeaf(*target, pointer, std::move(*plain))) ++opened.unopened;
  }
  return a;
}

Credential credentialFrom(const sdk::Json& o, const SecretSealer* sealer, Opened& opened) {
  Credential c;
  c.id = textOf(o.get("id"));
  c.vault_id = textOf(o.get("vault_id"));
  c.name = textOf(o.get("name"));
  c.created_at = integerOf(o.get("created_at"));
  c.updated_at = integerOf(o.get("updated_at"));
  c.metadata = textMap(o.get("metadata"));
  c.type = textOf(o.get("type"));
  c.secret_name = textOf(o.get("secret_name"));
  c.mcp_server_url = textOf(o.get("mcp_server_url"));
  if (const auto networking = o.get("networking"); networking.isObject()) {
    sdk::JsonWriter text;
    writeKeysSorted(text, networking);
    c.networking_json = text.take();
  }
  if (const auto sealed = o.get("secret"); !sealed.isAbsent()) {
    ++opened.sealed;
    auto plain = sealer ? sealer->open(textOf(sealed), credentialBinding(c)) : std::nullopt;
    if (plain)
      c.secret = std::move(*plain);
    else
      ++opened.unopened;
  }
  return c;
}

Vault vaultFrom(const sdk::Json& o) {
  return Vault{textOf(o.get("id")), textOf(o.get("owner")), textOf(o.get("name")),
               textMap(o.get("metadata")), integerOf(o.get("created_at"))};
}

}  // namespace

AgentsStateFile::AgentsStateFile(std::string state_dir, std::shared_ptr<const SecretSealer> sealer)
    : dir_(std::move(state_dir)), path_(dir_ + "/agents_state.json"), sealer_(std::move(sealer)) {}

sdk::Status AgentsStateFile::save(const AgentsState& state) const {
  sdk::JsonWriter w(4096);
  w.beginObject().member("version", kVersion);
  // Tells the next start whether its key is the one these values were sealed with.
  if (sealer_) w.member("key_check", sealer_->seal(kKeyCheck, "key_check"));
  w.key("agents").beginArray();
  for (const auto& a : state.agents) writeAgent(w, a, sealer_.get());
  w.endArray().key("vaults").beginArray();
  for (const auto& v : state.vaults) {
    w.beginObject().member("id", v.id).member("owner", v.owner).member("name", v.name);
    w.member("created_at", v.created_at).key("metadata");
    writeTextMap(w, v.metadata);
    w.endObject();
  }
  w.endArray().key("credentials").beginArray();
  for (const auto& c : state.credentials) writeCredential(w, c, sealer_.get());
  w.endArray().endObject();
  return writeFileAtomically(dir_, path_, w.take());
}

AgentsStateFile::Loaded AgentsStateFile::load(std::int64_t now) const {
  Loaded out;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return out;
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  auto root = sdk::Json::parse(text.str());
  if (!root || !root->isObject() || integerOf(root->get("version")) != kVersion) {
    const auto aside = moveFileAside(path_, "corrupt", now);
    out.warnings.push_back(
        path_ + " does not read (" +
        (root ? std::string("not a version 1 state file") : root.status().message()) +
        "); starting without it; it is kept as " +
        (aside.empty() ? std::string("it was (the rename failed)") : aside));
    return out;
  }
  const SecretSealer* sealer = sealer_.get();
  if (const auto check = root->get("key_check");
      sealer && check.isString() && !sealer->open(textOf(check), "key_check"))
    out.warnings.push_back(path_ + " was written with another state key");
  Opened opened;
  for (const auto& o : root->get("agents").elements())
    out.state.agents.push_back(agentFrom(o, sealer, opened));
  for (const auto& o : root->get("vaults").elements()) out.state.vaults.push_back(vaultFrom(o));
  for (const auto& o : root->get("credentials").elements())
    out.state.credentials.push_back(credentialFrom(o, sealer, opened));
  if (opened.unopened > 0) {
    // The next save writes them as not kept: keep the sealed originals for a restart with the
    // right key.
    const auto copy = path_ + ".unopened-" + std::to_string(now);
    std::error_code ec;
    std::filesystem::copy_file(path_, copy, std::filesystem::copy_options::overwrite_existing, ec);
    out.warnings.push_back(
        std::to_string(opened.unopened) + " of the " + std::to_string(opened.sealed) +
        " sealed secret(s) in " + path_ + " did not open (" +
        (sealer ? "another state key, or altered bytes" : "no state key is set") +
        "): they come back as not kept; the file as it was is kept as " +
        (ec ? std::string("nothing (the copy failed)") : copy));
  }
  return out;
}

}  // namespace abx::plugins::agents
