#include "definition/public_view.h"

#include "json_fields.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::AgentSpec;

void writeMaskedOrNull(sdk::JsonWriter& w, const std::string& secret) {
  secret.empty() ? w.null() : w.value(kMaskedSecret);
}

void writeStrings(sdk::JsonWriter& w, const std::vector<std::string>& items) {
  w.beginArray();
  for (const auto& item : items) w.value(item);
  w.endArray();
}

template <class T>
void writeOptional(sdk::JsonWriter& w, const std::optional<T>& v) {
  v ? w.value(*v) : w.null();
}

// The secret slots of the view: a slot given as a credential reference
// shows the reference, names and not secrets.
class SecretSlots {
 public:
  SecretSlots(sdk::JsonWriter& w, const std::vector<CredentialRef>& refs) : w_(w), refs_(refs) {}

  /** Writes member @p key at @p slot: its reference if it has one, else "***" (null if empty). */
  void masked(std::string_view key, const std::string& slot, const std::string& secret) {
    w_.key(key);
    if (!reference(slot)) writeMaskedOrNull(w_, secret);
  }
  /** Writes member @p key at @p slot: its reference if it has one, else @p shown. */
  void shown(std::string_view key, const std::string& slot, std::string_view shown) {
    w_.key(key);
    if (!reference(slot)) w_.value(shown);
  }

 private:
  bool reference(const std::string& slot) {
    const CredentialRef* found = nullptr;
    for (const auto& ref : refs_)
      if (ref.slot == slot) found = &ref;  // the last one, as a later reference replaces
    if (!found) return false;
    w_.beginObject().member("vault", found->vault).member("credential", found->credential);
    w_.endObject();
    return true;
  }

  sdk::JsonWriter& w_;
  const std::vector<CredentialRef>& refs_;
};

void writeLimits(sdk::JsonWriter& w, const sdk::agents::AgentLimits& limits) {
  w.beginObject().key("turn_timeout_s");
  writeOptional(w, limits.turn_timeout_s);
  w.key("idle_timeout_s");
  writeOptional(w, limits.idle_timeout_s);
  w.key("max_turns");
  writeOptional(w, limits.max_turns);
  w.key("max_budget_usd");
  writeOptional(w, limits.max_budget_usd);
  w.key("max_output_bytes");
  writeOptional(w, limits.max_output_bytes);
  w.key("cpu_seconds");
  writeOptional(w, limits.cpu_seconds);
  w.endObject();
}

void writeMcpServers(sdk::JsonWriter& w, SecretSlots& slots, const AgentSpec& spec) {
  w.beginObject();
  for (const auto& server : spec.mcp_servers) {
    w.key(server.name).beginObject();
    if (!server.url.empty()) {
      w.member("url", maskUrlCredential(server.url)).key("headers").beginObject();
      for (const auto& h : server.headers)
        slots.shown(h.name, "mcp_servers." + server.name + ".headers." + h.name,
                    h.secret ? kMaskedSecret : std::string_view(h.value));
      w.endObject();
    } else {
      w.member("command", server.command).key("args");
      writeStrings(w, server.args);
    }
    w.key("allowed_tools");
    writeStrings(w, server.allowed_tools);
    w.endObject();
  }
  w.endObject();
}

void writeWorkspace(sdk::JsonWriter& w, SecretSlots& slots, const sdk::agents::WorkspaceSpec& ws,
                    int git_depth) {
  w.beginObject().member("path", ws.path).key("git");
  if (ws.git) {
    w.beginObject().member("url", maskUrlCredential(ws.git->url)).key("ref");
    writeTextOrNull(w, ws.git->ref);
    w.member("depth", git_depth);
    slots.masked("token", "workspace.git.token", ws.git->token);
    w.endObject();
  } else {
    w.null();
  }
  w.endObject();
}

}  // namespace

std::string maskUrlCredential(std::string_view url) {
  const auto credential = urlCredential(url);
  if (credential.empty()) return std::string(url);
  const auto offset = static_cast<std::size_t>(credential.data() - url.data());
  return std::string(url.substr(0, offset)) + std::string(kMaskedSecret) +
         std::string(url.substr(offset + credential.size()));
}

void writePublicDefinitionMembers(sdk::JsonWriter& w, const AgentSpec& spec,
                                  const std::vector<CredentialRef>& refs, std::string_view model,
                                  bool named, int git_depth) {
  SecretSlots slots(w, refs);
  w.key("name");
  named ? w.value(spec.name) : w.null();
  w.member("runtime", spec.runtime).key("model");
  writeTextOrNull(w, model);
  w.key("instructions");
  writeTextOrNull(w, spec.instructions);
  w.key("provider").beginObject().key("base_url");
  writeTextOrNull(w, maskUrlCredential(spec.provider.base_url));
  slots.masked("api_key", "provider.api_key", spec.provider.api_key);
  w.key("wire_api");
  writeTextOrNull(w, spec.provider.wire_api);
  w.endObject().key("workspace");
  writeWorkspace(w, slots, spec.workspace, git_depth);
  w.key("env").beginObject();
  for (const auto& [name, value] : spec.env) w.member(name, value);
  w.endObject().key("secrets").beginObject();
  for (const auto& [name, value] : spec.secrets)
    slots.shown(name, "secrets." + name, kMaskedSecret);
  w.endObject().key("mcp_servers");
  writeMcpServers(w, slots, spec);
  w.member("permissions", sdk::agents::permissionsName(spec.permissions)).key("limits");
  writeLimits(w, spec.limits);
  w.key("extra_args");
  writeStrings(w, spec.extra_args);
  if (spec.command) {
    w.key("command").beginObject().key("argv");
    writeStrings(w, spec.command->argv);
    w.member("parser", spec.command->parser).key("resume_argv");
    writeStrings(w, spec.command->resume_argv);
    w.endObject();
  }
}

std::string publicDefinitionJson(const AgentSpec& spec, const std::vector<CredentialRef>& refs) {
  sdk::JsonWriter w(1024);
  w.beginObject();
  writePublicDefinitionMembers(w, spec, refs, spec.model);
  w.endObject();
  return w.take();
}

void writePublicMcpTools(sdk::JsonWriter& w, const AgentSpec& spec) {
  w.beginArray();
  for (const auto& server : spec.mcp_servers) {
    w.beginObject().member("type", "mcp").member("server_label", server.name);
    w.key("transport").beginObject();
    if (!server.url.empty()) {
      w.member("type", "http").member("server_url", maskUrlCredential(server.url));
      w.key("headers").beginObject();
      for (const auto& h : server.headers) w.member(h.name, kMaskedSecret);
      w.endObject();
    } else {
      w.member("type", "stdio").member("command", server.command).key("args");
      writeStrings(w, server.args);
      w.member("cwd", spec.workspace.path).key("env_vars").beginArray().endArray();
    }
    w.endObject().key("allowed_tools");
    if (server.allowed_tools.empty())
      w.null();
    else
      writeStrings(w, server.allowed_tools);
    w.member("connection_origin", "environment").key("credential_id").null();
    w.key("request_metadata").beginObject().endObject().member("required", false);
    w.endObject();
  }
  w.endArray();
}

std::string publicMcpToolsJson(const AgentSpec& spec) {
  sdk::JsonWriter w(512);
  writePublicMcpTools(w, spec);
  return w.take();
}

}  // namespace abx::plugins::agents
