#include "definition/public_view.h"

#include <Poco/Dynamic/Var.h>
#include <Poco/JSON/Array.h>

#include <sstream>

#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

using Poco::JSON::Array;
using Poco::JSON::Object;
using sdk::agents::AgentSpec;

Object::Ptr newObject() { return new Object(Poco::JSON_PRESERVE_KEY_ORDER); }

Poco::Dynamic::Var stringOrNull(const std::string& s) {
  if (s.empty()) return Poco::Dynamic::Var();
  return s;
}

Poco::Dynamic::Var maskedOrNull(const std::string& secret) {
  if (secret.empty()) return Poco::Dynamic::Var();
  return std::string(kMaskedSecret);
}

Array::Ptr stringArray(const std::vector<std::string>& items) {
  Array::Ptr array = new Array();
  for (const auto& item : items) array->add(item);
  return array;
}

template <class T>
Poco::Dynamic::Var optionalValue(const std::optional<T>& v) {
  if (!v) return Poco::Dynamic::Var();
  return *v;
}

Object::Ptr limitsObject(const sdk::agents::AgentLimits& limits) {
  auto o = newObject();
  o->set("turn_timeout_s", optionalValue(limits.turn_timeout_s));
  o->set("idle_timeout_s", optionalValue(limits.idle_timeout_s));
  o->set("max_turns", optionalValue(limits.max_turns));
  o->set("max_budget_usd", optionalValue(limits.max_budget_usd));
  o->set("max_output_bytes", optionalValue(limits.max_output_bytes));
  o->set("cpu_seconds", optionalValue(limits.cpu_seconds));
  return o;
}

Object::Ptr mcpServersObject(const AgentSpec& spec) {
  auto servers = newObject();
  for (const auto& server : spec.mcp_servers) {
    auto o = newObject();
    if (!server.url.empty()) {
      o->set("url", maskUrlCredential(server.url));
      auto headers = newObject();
      for (const auto& h : server.headers)
        headers->set(h.name, h.secret ? std::string(kMaskedSecret) : h.value);
      o->set("headers", headers);
    } else {
      o->set("command", server.command);
      o->set("args", stringArray(server.args));
    }
    o->set("allowed_tools", stringArray(server.allowed_tools));
    servers->set(server.name, o);
  }
  return servers;
}

// Shows each referenced slot as its reference: names, not secrets.
void showCredentialRefs(Object& root, const std::vector<CredentialRef>& refs) {
  for (const auto& ref : refs) {
    auto reference = newObject();
    reference->set("vault", ref.vault);
    reference->set("credential", ref.credential);
    // Walk the dotted slot; header and secret names hold no dots.
    Object* at = &root;
    std::string_view rest = ref.slot;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      auto next = at->getObject(std::string(rest.substr(0, dot)));
      if (!next) break;
      at = next.get();
      rest.remove_prefix(dot + 1);
    }
    if (rest.find('.') == std::string_view::npos) at->set(std::string(rest), reference);
  }
}

}  // namespace

std::string maskUrlCredential(std::string_view url) {
  const auto credential = urlCredential(url);
  if (credential.empty()) return std::string(url);
  const auto offset = static_cast<std::size_t>(credential.data() - url.data());
  return std::string(url.substr(0, offset)) + std::string(kMaskedSecret) +
         std::string(url.substr(offset + credential.size()));
}

Poco::JSON::Object::Ptr publicDefinitionObject(const AgentSpec& spec,
                                               const std::vector<CredentialRef>& refs) {
  auto root = newObject();
  root->set("name", spec.name);
  root->set("runtime", spec.runtime);
  root->set("model", stringOrNull(spec.model));
  root->set("instructions", stringOrNull(spec.instructions));

  auto provider = newObject();
  provider->set("base_url", stringOrNull(maskUrlCredential(spec.provider.base_url)));
  provider->set("api_key", maskedOrNull(spec.provider.api_key));
  provider->set("wire_api", stringOrNull(spec.provider.wire_api));
  root->set("provider", provider);

  auto workspace = newObject();
  workspace->set("path", spec.workspace.path);
  if (spec.workspace.git) {
    auto git = newObject();
    git->set("url", maskUrlCredential(spec.workspace.git->url));
    git->set("ref", stringOrNull(spec.workspace.git->ref));
    git->set("token", maskedOrNull(spec.workspace.git->token));
    workspace->set("git", git);
  } else {
    workspace->set("git", Poco::Dynamic::Var());
  }
  root->set("workspace", workspace);

  auto env = newObject();
  for (const auto& [name, value] : spec.env) env->set(name, value);
  root->set("env", env);
  auto secrets = newObject();
  for (const auto& [name, value] : spec.secrets) secrets->set(name, std::string(kMaskedSecret));
  root->set("secrets", secrets);

  root->set("mcp_servers", mcpServersObject(spec));
  root->set("permissions", std::string(sdk::agents::permissionsName(spec.permissions)));
  root->set("limits", limitsObject(spec.limits));
  root->set("extra_args", stringArray(spec.extra_args));
  if (spec.command) {
    auto command = newObject();
    command->set("argv", stringArray(spec.command->argv));
    command->set("parser", spec.command->parser);
    command->set("resume_argv", stringArray(spec.command->resume_argv));
    root->set("command", command);
  }
  showCredentialRefs(*root, refs);
  return root;
}

Poco::JSON::Array::Ptr publicMcpTools(const AgentSpec& spec) {
  Array::Ptr tools = new Array();
  for (const auto& server : spec.mcp_servers) {
    auto tool = newObject();
    tool->set("type", "mcp");
    tool->set("server_label", server.name);
    auto transport = newObject();
    if (!server.url.empty()) {
      transport->set("type", "http");
      transport->set("server_url", maskUrlCredential(server.url));
      auto headers = newObject();
      for (const auto& h : server.headers) headers->set(h.name, std::string(kMaskedSecret));
      transport->set("headers", headers);
    } else {
      transport->set("type", "stdio");
      transport->set("command", server.command);
      transport->set("args", stringArray(server.args));
      transport->set("cwd", spec.workspace.path);
      transport->set("env_vars", Array::Ptr(new Array()));
    }
    tool->set("transport", transport);
    if (server.allowed_tools.empty())
      tool->set("allowed_tools", Poco::Dynamic::Var());
    else
      tool->set("allowed_tools", stringArray(server.allowed_tools));
    tool->set("connection_origin", "environment");
    tool->set("credential_id", Poco::Dynamic::Var());
    tool->set("request_metadata", newObject());
    tool->set("required", false);
    tools->add(tool);
  }
  return tools;
}

std::string publicDefinitionJson(const AgentSpec& spec) {
  std::ostringstream out;
  publicDefinitionObject(spec)->stringify(out);
  return out.str();
}

}  // namespace abx::plugins::agents
