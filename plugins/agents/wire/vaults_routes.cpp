#include "vaults_routes.h"

#include <chrono>

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
  w.endObject().endObject();
  return w.take();
}

// Reads `auth` into @p c; @p creating requires every field of its type.
std::optional<WireError> readAuth(const sdk::Json& auth, Credential& c, bool creating) {
  if (!auth.isObject())
    return WireError{.status = 400,
                     .message = "'auth' must be an object.",
                     .code = "invalid_request",
                     .param = "auth"};
  const auto type = textOf(auth.get("type"));
  if (creating) c.type = type;
  if (type != c.type)
    return WireError{.status = 400,
                     .message = "The auth type of a credential cannot change.",
                     .code = "invalid_request",
                     .param = "auth.type"};
  auto need = [&](const char* key) -> std::optional<std::string> {
    auto value = textOf(auth.get(key));
    if (value.empty() && creating) return std::nullopt;
    return value;
  };
  if (type == "environment_variable") {
    if (creating) {
      c.secret_name = textOf(auth.get("secret_name"));
      if (auto problem = envNameProblem(c.secret_name, EnvKind::secret))
        return WireError{.status = 400,
                         .message = "auth.secret_name: " + *problem,
                         .code = "invalid_request",
                         .param = "auth.secret_name"};
      if (const auto networking = auth.get("networking"); networking.isObject()) {
        sdk::JsonWriter text;
        writeKeysSorted(text, networking);
        c.networking_json = text.take();
      }
    }
    auto value = need("secret_value");
    if (!value)
      return WireError{.status = 400,
                       .message = "auth.secret_value is required.",
                       .code = "invalid_request",
                       .param = "auth"};
    if (!value->empty()) c.secret = *value;
  } else if (type == "static_bearer" || type == "mcp_oauth") {
    if (creating) {
      c.mcp_server_url = textOf(auth.get("mcp_server_url"));
      if (c.mcp_server_url.empty())
        return WireError{.status = 400,
                         .message = "auth.mcp_server_url is required.",
                         .code = "invalid_request",
                         .param = "auth"};
    }
    auto value = need(type == "static_bearer" ? "token" : "access_token");
    if (!value)
      return WireError{.status = 400,
                       .message = "The credential's token is required.",
                       .code = "invalid_request",
                       .param = "auth"};
    if (!value->empty()) c.secret = *value;
  } else {
    return WireError{
        .status = 400,
        .message = "auth.type must be environment_variable, static_bearer or mcp_oauth.",
        .code = "invalid_request",
        .param = "auth.type"};
  }
  return std::nullopt;
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

sdk::RouteSpec route(std::string method, std::string path, std::string endpoint,
                     std::string summary) {
  return agentsRoute(std::move(method), std::move(path), std::move(endpoint), std::move(summary),
                     "agents:admin");
}

}  // namespace

std::vector<sdk::RouteSpec> vaultsRoutes(Ctx ctx) {
  std::vector<sdk::RouteSpec> routes;
  auto add = [&](std::string method, std::string path, std::string endpoint, std::string summary,
                 std::function<sdk::Response(const sdk::Request&)> fn) {
    auto spec = route(std::move(method), std::move(path), std::move(endpoint), std::move(summary));
    spec.handler = std::move(fn);
    routes.push_back(std::move(spec));
  };
  add("POST", "/v1/vaults", "vaults_create", "Create a vault", [ctx](const sdk::Request& r) {
    auto v = ctx->store->createVault(
        r.identity.id, textOf(r.json.get("name")),
        metadataOf(r.json).value_or(std::map<std::string, std::string>{}), unixNow());
    return sdk::Response::json(vaultJson(v));
  });
  add("GET", "/v1/vaults", "vaults_list", "List vaults", [ctx](const sdk::Request& r) {
    PageItems items;
    for (const auto& v : ctx->store->vaults())
      if (mayActOn(r.identity, v.owner)) items.emplace_back(v.id, vaultJson(v));
    return pageResponse(r, std::move(items));
  });
  add("GET", "/v1/vaults/{id}", "vaults_get", "A vault", [ctx](const sdk::Request& r) {
    const std::string id(r.param("id").value_or(""));
    auto v = visibleVault(*ctx->store, id, r.identity);
    return v ? sdk::Response::json(vaultJson(*v)) : noVault(id);
  });
  add("POST", "/v1/vaults/{id}", "vaults_update", "Update a vault", [ctx](const sdk::Request& r) {
    const std::string id(r.param("id").value_or(""));
    if (!visibleVault(*ctx->store, id, r.identity)) return noVault(id);
    std::optional<std::string> name;
    if (const auto given = r.json.get("name"); !given.isAbsent()) name = textOf(given);
    if (!ctx->store->updateVault(id, name, metadataOf(r.json))) return noVault(id);
    auto updated = ctx->store->vault(id);  // a delete may have come in between
    return updated ? sdk::Response::json(vaultJson(*updated)) : noVault(id);
  });
  add("DELETE", "/v1/vaults/{id}", "vaults_delete", "Delete a vault and its credentials",
      [ctx](const sdk::Request& r) {
        const std::string id(r.param("id").value_or(""));
        if (!visibleVault(*ctx->store, id, r.identity) || !ctx->store->deleteVault(id))
          return noVault(id);
        return deletedResponse(id, "vault.deleted");
      });
  add("POST", "/v1/vaults/{id}/credentials", "vault_credentials_create", "Add a credential",
      [ctx](const sdk::Request& r) {
        const std::string vault_id(r.param("id").value_or(""));
        if (!visibleVault(*ctx->store, vault_id, r.identity)) return noVault(vault_id);
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
        if (ctx->host_redactor) ctx->host_redactor->addSecret(c.secret);
        auto added = ctx->store->addCredential(std::move(c), unixNow());
        if (!added) return noVault(vault_id);
        return sdk::Response::json(credentialJson(*added));
      });
  add("GET", "/v1/vaults/{id}/credentials", "vault_credentials_list", "A vault's credentials",
      [ctx](const sdk::Request& r) {
        const std::string vault_id(r.param("id").value_or(""));
        if (!visibleVault(*ctx->store, vault_id, r.identity)) return noVault(vault_id);
        PageItems items;
        for (const auto& c : ctx->store->credentials(vault_id))
          items.emplace_back(c.id, credentialJson(c));
        return pageResponse(r, std::move(items));
      });
  add("GET", "/v1/vaults/{id}/credentials/{credential_id}", "vault_credentials_get",
      "A credential (never its secret)", [ctx](const sdk::Request& r) {
        const std::string cid(r.param("credential_id").value_or(""));
        auto c = visibleCredential(*ctx, r);
        return c ? sdk::Response::json(credentialJson(*c)) : noCredential(cid);
      });
  add("POST", "/v1/vaults/{id}/credentials/{credential_id}", "vault_credentials_update",
      "Rotate a credential or change its metadata", [ctx](const sdk::Request& r) {
        const std::string cid(r.param("credential_id").value_or(""));
        auto c = visibleCredential(*ctx, r);
        if (!c) return noCredential(cid);
        if (auto meta = metadataOf(r.json)) c->metadata = std::move(*meta);
        if (const auto auth = r.json.get("auth"); !auth.isAbsent())
          if (auto e = readAuth(auth, *c, /*creating=*/false)) return openAiError(*e);
        if (ctx->host_redactor) ctx->host_redactor->addSecret(c->secret);
        ctx->store->putCredential(*c, unixNow());
        auto updated = ctx->store->credential(c->vault_id, cid);
        return updated ? sdk::Response::json(credentialJson(*updated)) : noCredential(cid);
      });
  add("DELETE", "/v1/vaults/{id}/credentials/{credential_id}", "vault_credentials_delete",
      "Delete a credential", [ctx](const sdk::Request& r) {
        const std::string cid(r.param("credential_id").value_or(""));
        if (!visibleCredential(*ctx, r) ||
            !ctx->store->deleteCredential(std::string(r.param("id").value_or("")), cid))
          return noCredential(cid);
        return deletedResponse(cid, "vault.credential.deleted");
      });
  return routes;
}

}  // namespace abx::plugins::agents
