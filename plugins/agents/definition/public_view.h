// The PUBLIC view of an agent definition, for GET routes (agents spec §9.4
// "write-only secrets"): the definition schema with every secret value
// replaced by "***". This is the only serialisation of an AgentSpec; nothing
// else may turn a definition into JSON or text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/agent_adapter.h"
#include "abx/sdk/json.h"
#include "definition/credential_ref.h"

namespace abx::plugins::agents {

/** What a secret value looks like in the public view. */
inline constexpr std::string_view kMaskedSecret = "***";

/**
 * Writes the view's members into the object @p w has begun:
 * {name, runtime, model, instructions, provider{base_url, api_key, wire_api},
 * workspace{path, git{url, ref, token}}, env{}, secrets{NAME:"***"},
 * mcp_servers{name:{url, headers{H:"***"|value}, allowed_tools} | {command, args,
 * allowed_tools}}, permissions, limits{… null = no limit}, extra_args[], command?}.
 * Secret values (and URL credentials) are "***"; an absent secret is null; a
 * slot given as a credential reference shows the reference {vault, credential}.
 * @p model is the "model" shown (null when empty): the definition's, or what
 * the caller makes of it. @p named false shows the name as null (an agent
 * whose id the server chose). @p git_depth is workspace.git.depth (kept
 * beside the spec).
 */
void writePublicDefinitionMembers(sdk::JsonWriter& w, const sdk::agents::AgentSpec& spec,
                                  const std::vector<CredentialRef>& refs, std::string_view model,
                                  bool named = true, int git_depth = 1);

/** The view as one compact JSON object (model as defined). */
std::string publicDefinitionJson(const sdk::agents::AgentSpec& spec,
                                 const std::vector<CredentialRef>& refs = {});

/**
 * The definition's MCP servers as Agents-API tool resources (openai-wire.md
 * §9.2): {type:"mcp", server_label, transport:{type:"http", server_url,
 * headers:{name:"***"}} | {type:"stdio", command, args, cwd, env_vars:[]},
 * allowed_tools (null = all), connection_origin:"environment",
 * credential_id:null, request_metadata:{}, required:false}. Every header value
 * is "***" ("never echo secrets; give header names only").
 */
void writePublicMcpTools(sdk::JsonWriter& w, const sdk::agents::AgentSpec& spec);

/** writePublicMcpTools() as compact JSON text (an array). */
std::string publicMcpToolsJson(const sdk::agents::AgentSpec& spec);

/** @p url with the credential of its user info replaced by "***". */
std::string maskUrlCredential(std::string_view url);

}  // namespace abx::plugins::agents
