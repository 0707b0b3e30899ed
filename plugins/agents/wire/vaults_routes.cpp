#include "vaults_routes.h"

#include <chrono>

#include "abx/sdk/route_table.h"
#include "definition/definition_rules.h"
#include "json_fields.h"
#include "openai_error.h"
#include "ownership.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Ctx = std::shared_ptr<const VaultsContext>;

std::optional<std::map<std::string, std::string>> metadataOf(const sdk::Json& body) {
  const auto meta = body.get("metadata");
  if (!meta.isObject()) return std::nullopt;
  return textMap(meta);
}

std::string vaultJson(const Vault& v) {
  sdk::JsonWriter w(256);
  w.beginObject().member("id", v.id).member("object", "vault");
  w.member("created_at", v.created_at).key("name");
  writeTextOrNull(w, v.name);
  w.key("metadata");
  writeTextMap(w, v.metadata);
  w.endObject();
  return w.take();
}

// The non-secret view of a credential.
std::string credentialJson(const Credential& c) {
  sdk::JsonWriter w(512);
  w.beginObject().member("id", c.id).member("object", "vault.credential");
  w.member("vault_id", c.vault_id).member("name", c.name);
  w.member("created_at", c.created_at).member("updated_at", c.updated_at).key("metadata");
  writeTextMap(w, c.metadata);
  w.key("auth").beginObject().member("type", c.type);
  if (c.type == "environment_variable") {
    w.member("secret_name", c.secret_name).key("networking").raw(c.networking_json);
  } else {
    w.member("mcp_server_url", c.mcp_server_url);
    if (c.type != "static_bearer") w.key("expires_at").null().key("refresh").null();
  }
  w.endObject();
  // Only after a restart without a state key: the secret must be sent again.
  if (c.secret.empty()) w.member("secret_kept", false);
  w.endObject();
  return w.take();
}

// A 400 about the `auth` object of a credential, naming @p param.
WireError badAuth(std::string message, std::string param) {
  auto error = WireError::badRequest(std::move(message), "invalid_request");
  error.param = std::move(param);
  return error;
}

// Reads `auth` into @p c; @p creating requires every field of its type.
std::optional<WireError> readAuth(const sdk::Json& auth, Credential& c, bool creating) {
  if (!auth.isObject()) return badAuth("'auth' must be an object.", "auth");
  const auto type = textOf(auth.get("type"));
  if (creating) c.type = type;
  if (type != c.type) return badAuth("The auth type of a credential cannot change.", "auth.type");
  // The secret, required when creating; an empty one on update keeps the old.
  auto takeSecret = [&](const char* key, const char* missing) -> std::optional<WireError> {
    auto value = textOf(auth.get(key));
    if (value.empty() && creating) return badAuth(missing, "auth");
    if (!value.empty()) c.secret = std::move(value);
    return std::nullopt;
  };
  if (type == "environment_variable") {
    if (creating) {
      c.secret_name = textOf(auth.get("secret_name"));
      if (auto problem = envNameProblem(c.secret_name, EnvKind::secret))
        return badAuth("auth.secret_name: " + *problem, "auth.secret_name");
      if (const auto networking = auth.get("networking"); networking.isObject()) {
        sdk::JsonWriter text;
        writeKeysSorted(text, networking);
        c.networking_json = text.take();
      }
    }
    return takeSecret("secret_value", "auth.secret_value is required.");
  }
  if (type == "static_bearer" || type == "mcp_oauth") {
    if (creating) {
      c.mcp_server_url = textOf(auth.get("mcp_server_url"));
      if (c.mcp_server_url.empty()) return badAuth("auth.mcp_server_url is required.", "auth");
    }
    return takeSecret(type == "static_bearer" ? "token" : "access_token",
                      "The credential's token is required.");
  }
  return badAuth("auth.type must be environment_variable, static_bearer or mcp_oauth.",
                 "auth.type");
}

sdk::Response noVault(const std::string& id) {
  return openAiError(
      {.status = 404, .message = "No vault with id '" + id + "' found.", .code = "not_found"});
}
sdk::Response noCredential(const std::string& id) {
  return openAiError(
      {.status = 404, .message = "No credential with id '" + id + "' found.", .code = "not_found"});
}

// The credential named by the path, when the caller may act on its vault.
std::optional<Credential> visibleCredential(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string vault_id(r.param("id").value_or(""));
  if (!visibleVault(*ctx.store, vault_id, r.identity)) return std::nullopt;
  return ctx.store->credential(vault_id, std::string(r.param("credential_id").value_or("")));
}

sdk::Response vaultsCreate(const VaultsContext& ctx, const sdk::Request& r) {
  auto v = ctx.store->createVault(r.identity.id, textOf(r.json.get("name")),
                                  metadataOf(r.json).value_or(std::map<std::string, std::string>{}),
                                  unixNow());
  return sdk::Response::json(vaultJson(v));
}

sdk::Response vaultsList(const VaultsContext& ctx, const sdk::Request& r) {
  PageItems items;
  for (const auto& v : ctx.store->vaults())
    if (mayActOn(r.identity, v.owner)) items.emplace_back(v.id, vaultJson(v));
  return pageResponse(r, std::move(items));
}

sdk::Response vaultsGet(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  auto v = visibleVault(*ctx.store, id, r.identity);
  return v ? sdk::Response::json(vaultJson(*v)) : noVault(id);
}

sdk::Response vaultsUpdate(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  if (!visibleVault(*ctx.store, id, r.identity)) return noVault(id);
  std::optional<std::string> name;
  if (const auto given = r.json.get("name"); !given.isAbsent()) name = textOf(given);
  if (!ctx.store->updateVault(id, name, metadataOf(r.json))) return noVault(id);
  auto updated = ctx.store->vault(id);  // a delete may have come in between
  return updated ? sdk::Response::json(vaultJson(*updated)) : noVault(id);
}

sdk::Response vaultsDelete(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string id(r.param("id").value_or(""));
  if (!visibleVault(*ctx.store, id, r.identity) || !ctx.store->deleteVault(id)) return noVault(id);
  return deletedResponse(id, "vault.deleted");
}

sdk::Response vaultCredentialsCreate(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string vault_id(r.param("id").value_or(""));
  if (!visibleVault(*ctx.store, vault_id, r.identity)) return noVault(vault_id);
  Credential c;
  c.vault_id = vault_id;
  c.name = textOf(r.json.get("name"));
  if (c.name.empty() || c.name.size() > 256)
    return openAiError({.status = 400,
                        .message = "'name' must hold 1 to 256 bytes.",
                        .code = "invalid_request",
                        .param = "name"});
  c.metadata = metadataOf(r.json).value_or(std::map<std::string, std::string>{});
  if (auto e = readAuth(r.json.get("auth"), c, /*creating=*/true)) return openAiError(*e);
  if (ctx.host_redactor) ctx.host_redactor->addSecret(c.secret);
  auto added = ctx.store->addCredential(std::move(c), unixNow());
  if (!added) return noVault(vault_id);
  return sdk::Response::json(credentialJson(*added));
}

sdk::Response vaultCredentialsList(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string vault_id(r.param("id").value_or(""));
  if (!visibleVault(*ctx.store, vault_id, r.identity)) return noVault(vault_id);
  PageItems items;
  for (const auto& c : ctx.store->credentials(vault_id))
    items.emplace_back(c.id, credentialJson(c));
  return pageResponse(r, std::move(items));
}

sdk::Response vaultCredentialsGet(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string cid(r.param("credential_id").value_or(""));
  auto c = visibleCredential(ctx, r);
  return c ? sdk::Response::json(credentialJson(*c)) : noCredential(cid);
}

sdk::Response vaultCredentialsUpdate(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string cid(r.param("credential_id").value_or(""));
  auto c = visibleCredential(ctx, r);
  if (!c) return noCredential(cid);
  if (auto meta = metadataOf(r.json)) c->metadata = std::move(*meta);
  if (const auto auth = r.json.get("auth"); !auth.isAbsent())
    if (auto e = readAuth(auth, *c, /*creating=*/false)) return openAiError(*e);
  if (ctx.host_redactor) ctx.host_redactor->addSecret(c->secret);
  ctx.store->putCredential(*c, unixNow());
  auto updated = ctx.store->credential(c->vault_id, cid);
  return updated ? sdk::Response::json(credentialJson(*updated)) : noCredential(cid);
}

sdk::Response vaultCredentialsDelete(const VaultsContext& ctx, const sdk::Request& r) {
  const std::string cid(r.param("credential_id").value_or(""));
  if (!visibleCredential(ctx, r) ||
      !ctx.store->deleteCredential(std::string(r.param("id").value_or("")), cid))
    return noCredential(cid);
  return deletedResponse(cid, "vault.credential.deleted");
}

}  // namespace

sdk::Status addVaultsRoutes(sdk::RouteRegistry& registry, Ctx context) {
  // No handler outlives its call, so each gets the context itself.
  return sdk::addRoutes(
      registry, "agents", std::move(context),
      {
          {"POST",
           "/v1/vaults",
           "vaults_create",
           "Create a vault",
           {"agents:admin"},
           &vaultsCreate},
          {"GET", "/v1/vaults", "vaults_list", "List vaults", {"agents:admin"}, &vaultsList},
          {"GET", "/v1/vaults/{id}", "vaults_get", "A vault", {"agents:admin"}, &vaultsGet},
          {"POST",
           "/v1/vaults/{id}",
           "vaults_update",
           "Update a vault",
           {"agents:admin"},
           &vaultsUpdate},
          {"DELETE",
           "/v1/vaults/{id}",
           "vaults_delete",
           "Delete a vault and its credentials",
           {"agents:admin"},
           &vaultsDelete},
          {"POST",
           "/v1/vaults/{id}/credentials",
           "vault_credentials_create",
           "Add a credential",
           {"agents:admin"},
           &vaultCredentialsCreate},
          {"GET",
           "/v1/vaults/{id}/credentials",
           "vault_credentials_list",
           "A vault's credentials",
           {"agents:admin"},
           &vaultCredentialsList},
          {"GET",
           "/v1/vaults/{id}/credentials/{credential_id}",
           "vault_credentials_get",
           "A credential (never its secret)",
           {"agents:admin"},
           &vaultCredentialsGet},
          {"POST",
           "/v1/vaults/{id}/credentials/{credential_id}",
           "vault_credentials_update",
           "Rotate a credential or change its metadata",
           {"agents:admin"},
           &vaultCredentialsUpdate},
          {"DELETE",
           "/v1/vaults/{id}/credentials/{credential_id}",
           "vault_credentials_delete",
           "Delete a credential",
           {"agents:admin"},
           &vaultCredentialsDelete},
      });
}

}  // namespace abx::plugins::agents
