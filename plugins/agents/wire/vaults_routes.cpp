#include "vaults_routes.h"

#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>

#include <chrono>
#include <sstream>

#include "definition/definition_rules.h"
#include "json_text.h"
#include "openai_error.h"
#include "ownership.h"
#include "wire_route.h"

namespace abx::plugins::agents {
namespace {

using Poco::JSON::Object;
using Ctx = std::shared_ptr<const VaultsContext>;

Object::Ptr body(const sdk::Request& r) {
  try {
    Poco::JSON::Parser parser;
    auto parsed = parser.parse(r.body.empty() ? "{}" : r.body);
    if (parsed.type() == typeid(Object::Ptr)) return parsed.extract<Object::Ptr>();
  } catch (...) {
  }
  return nullptr;
}

sdk::Response badBody() {
  return openAiError({400, "The request body must be a JSON object.", "invalid_request", ""});
}

std::optional<std::map<std::string, std::string>> metadataOf(const Object::Ptr& o) {
  auto meta = o->getObject("metadata");
  if (!meta) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& k : meta->getNames()) out[k] = meta->optValue<std::string>(k, "");
  return out;
}

std::string metadataJson(const std::map<std::string, std::string>& metadata) {
  JsonText meta;
  for (const auto& [k, v] : metadata) meta.str(k, v);
  return meta.done();
}

std::string vaultJson(const Vault& v) {
  return JsonText()
      .str("id", v.id)
      .str("object", "vault")
      .num("created_at", v.created_at)
      .strOrNull("name", v.name)
      .raw("metadata", metadataJson(v.metadata))
      .done();
}

// The non-secret view of a credential.
std::string credentialJson(const Credential& c) {
  JsonText auth;
  auth.str("type", c.type);
  if (c.type == "environment_variable")
    auth.str("secret_name", c.secret_name).raw("networking", c.networking_json);
  else if (c.type == "static_bearer")
    auth.str("mcp_server_url", c.mcp_server_url);
  else
    auth.str("mcp_server_url", c.mcp_server_url).null("expires_at").null("refresh");
  return JsonText()
      .str("id", c.id)
      .str("object", "vault.credential")
      .str("vault_id", c.vault_id)
      .str("name", c.name)
      .num("created_at", c.created_at)
      .num("updated_at", c.updated_at)
      .raw("metadata", metadataJson(c.metadata))
      .raw("auth", auth.done())
      .done();
}

// Reads `auth` into @p c; @p creating requires every field of its type.
std::optional<WireError> readAuth(const Object::Ptr& auth, Credential& c, bool creating) {
  if (!auth) return WireError{400, "'auth' must be an object.", "invalid_request", "auth"};
  const auto type = auth->optValue<std::string>("type", "");
  if (creating) c.type = type;
  if (type != c.type)
    return WireError{400, "The auth type of a credential cannot change.", "invalid_request",
                     "auth.type"};
  auto need = [&](const char* key) -> std::optional<std::string> {
    auto value = auth->optValue<std::string>(key, "");
    if (value.empty() && creating) return std::nullopt;
    return value;
  };
  if (type == "environment_variable") {
    if (creating) {
      c.secret_name = auth->optValue<std::string>("secret_name", "");
      if (auto problem = envNameProblem(c.secret_name, EnvKind::secret))
        return WireError{400, "auth.secret_name: " + *problem, "invalid_request",
                         "auth.secret_name"};
      if (auto networking = auth->getObject("networking")) {
        std::ostringstream text;
        networking->stringify(text);
        c.networking_json = text.str();
      }
    }
    auto value = need("secret_value");
    if (!value) return WireError{400, "auth.secret_value is required.", "invalid_request", "auth"};
    if (!value->empty()) c.secret = *value;
  } else if (type == "static_bearer" || type == "mcp_oauth") {
    if (creating) {
      c.mcp_server_url = auth->optValue<std::string>("mcp_server_url", "");
      if (c.mcp_server_url.empty())
        return WireError{400, "auth.mcp_server_url is required.", "invalid_request", "auth"};
    }
    auto value = need(type == "static_bearer" ? "token" : "access_token");
    if (!value)
      return WireError{400, "The credential's token is required.", "invalid_request", "auth"};
    if (!value->empty()) c.secret = *value;
  } else {
    return WireError{400, "auth.type must be environment_variable, static_bearer or mcp_oauth.",
                     "invalid_request", "auth.type"};
  }
  return std::nullopt;
}

sdk::Response noVault(const std::string& id) {
  return openAiError({404, "No vault with id '" + id + "' found.", "not_found", ""});
}
sdk::Response noCredential(const std::string& id) {
  return openAiError({404, "No credential with id '" + id + "' found.", "not_found", ""});
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
    auto o = body(r);
    if (!o) return badBody();
    auto v = ctx->store->createVault(r.identity.id, o->optValue<std::string>("name", ""),
                                     metadataOf(o).value_or(std::map<std::string, std::string>{}),
                                     unixNow());
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
    auto o = body(r);
    if (!o) return badBody();
    std::optional<std::string> name;
    if (o->has("name") && !o->isNull("name")) name = o->getValue<std::string>("name");
    if (!ctx->store->updateVault(id, name, metadataOf(o))) return noVault(id);
    auto updated = ctx->store->vault(id);  // a delete may have come in between
    return updated ? sdk::Response::json(vaultJson(*updated)) : noVault(id);
  });
  add("DELETE", "/v1/vaults/{id}", "vaults_delete", "Delete a vault and its credentials",
      [ctx](const sdk::Request& r) {
        const std::string id(r.param("id").value_or(""));
        if (!visibleVault(*ctx->store, id, r.identity) || !ctx->store->deleteVault(id))
          return noVault(id);
        return sdk::Response::json(JsonText()
                                       .str("id", id)
                                       .str("object", "vault.deleted")
                                       .boolean("deleted", true)
                                       .done());
      });
  add("POST", "/v1/vaults/{id}/credentials", "vault_credentials_create", "Add a credential",
      [ctx](const sdk::Request& r) {
        const std::string vault_id(r.param("id").value_or(""));
        if (!visibleVault(*ctx->store, vault_id, r.identity)) return noVault(vault_id);
        auto o = body(r);
        if (!o) return badBody();
        Credential c;
        c.vault_id = vault_id;
        c.name = o->optValue<std::string>("name", "");
        if (c.name.empty() || c.name.size() > 256)
          return openAiError({400, "'name' must hold 1 to 256 bytes.", "invalid_request", "name"});
        c.metadata = metadataOf(o).value_or(std::map<std::string, std::string>{});
        if (auto e = readAuth(o->getObject("auth"), c, /*creating=*/true)) return openAiError(*e);
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
        auto o = body(r);
        if (!o) return badBody();
        if (auto meta = metadataOf(o)) c->metadata = std::move(*meta);
        if (o->has("auth") && !o->isNull("auth"))
          if (auto e = readAuth(o->getObject("auth"), *c, /*creating=*/false))
            return openAiError(*e);
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
        return sdk::Response::json(JsonText()
                                       .str("id", cid)
                                       .str("object", "vault.credential.deleted")
                                       .boolean("deleted", true)
                                       .done());
      });
  return routes;
}

}  // namespace abx::plugins::agents
