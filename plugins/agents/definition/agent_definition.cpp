// The definition parser: walks a ConfigValue, reports every problem with its
// dotted path, and fills AgentSpec. Fields are read with DefinitionReader
// (definition_reader.h), validation rules live in definition_rules.h, the
// mcp_servers section in mcp_definition.h; this file decides where each rule
// applies.
#include "definition/agent_definition.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "definition/definition_reader.h"
#include "definition/definition_rules.h"
#include "definition/mcp_definition.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::AgentLimits;
using sdk::agents::AgentSpec;
using sdk::agents::CommandSpec;
using sdk::agents::EnvList;
using sdk::agents::GitSpec;
using sdk::agents::Permissions;

/** The sections of one definition, in the order they are read. */
class AgentSpecReader : public DefinitionReader {
 public:
  using DefinitionReader::DefinitionReader;

  int gitDepth() const { return git_depth_; }

  AgentSpec read(const ConfigValue& root) {
    AgentSpec spec;
    if (!expectKind(root, Kind::object, prefix())) return spec;
    checkDuplicateKeys(root, prefix());
    checkKeys(root, prefix(),
              {"name", "runtime", "model", "instructions", "provider", "workspace", "env",
               "secrets", "mcp_servers", "permissions", "limits", "extra_args", "command"});
    readName(root, spec);
    readRuntime(root, spec);
    optionalString(root, "model", prefix(), spec.model);
    optionalString(root, "instructions", prefix(), spec.instructions);
    if (const auto* v = root.find("provider")) readProvider(*v, fieldPath("provider"), spec);
    if (const auto* v = root.find("workspace")) readWorkspace(*v, fieldPath("workspace"), spec);
    if (const auto* v = root.find("env")) spec.env = readEnvMap(*v, fieldPath("env"), EnvKind::env);
    if (const auto* v = root.find("secrets"))
      spec.secrets = readEnvMap(*v, fieldPath("secrets"), EnvKind::secret);
    for (const auto& [name, value] : spec.secrets)
      for (const auto& [env_name, env_value] : spec.env)
        if (env_name == name)
          fail(joinPath(fieldPath("secrets"), name), "is also set in env; use one of them");
    if (const auto* v = root.find("mcp_servers"))
      readMcpServers(*this, *v, fieldPath("mcp_servers"), spec);
    if (const auto* v = root.find("permissions"))
      readPermissions(*v, fieldPath("permissions"), spec);
    if (const auto* v = root.find("limits")) readLimits(*v, fieldPath("limits"), spec.limits);
    if (const auto* v = root.find("extra_args"))
      spec.extra_args = stringList(*v, fieldPath("extra_args"));
    readCommand(root, spec);
    return spec;
  }

 private:
  /** The path of a top-level field. */
  std::string fieldPath(std::string_view key) const { return joinPath(prefix(), key); }

  void readName(const ConfigValue& root, AgentSpec& spec) {
    auto name = requiredString(root, "name", prefix());
    if (!name) return;
    if (!isValidAgentName(*name))
      return fail(fieldPath("name"), "must match [A-Za-z0-9._-]{1,64} and not be '.' or '..'");
    spec.name = std::move(*name);
  }

  void readRuntime(const ConfigValue& root, AgentSpec& spec) {
    auto runtime = requiredString(root, "runtime", prefix());
    if (!runtime) return;
    if (!isValidRuntimeName(*runtime))
      return fail(fieldPath("runtime"), "must match [A-Za-z0-9._-]{1,64}");
    if (options().known_runtime && !options().known_runtime(*runtime))
      return fail(fieldPath("runtime"), "unknown runtime '" + *runtime + "'");
    spec.runtime = std::move(*runtime);
  }

  void readProvider(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    checkKeys(v, path, {"base_url", "api_key", "wire_api"});
    optionalString(v, "base_url", path, spec.provider.base_url);
    if (!spec.provider.base_url.empty())
      if (auto problem = httpUrlProblem(spec.provider.base_url))
        fail(joinPath(path, "base_url"), *problem);
    secretString(v, "api_key", path, spec.provider.api_key);
    optionalString(v, "wire_api", path, spec.provider.wire_api);
    const auto& wire = spec.provider.wire_api;
    if (!wire.empty() && wire != "responses" && wire != "chat")
      fail(joinPath(path, "wire_api"), "must be responses or chat (got '" + wire + "')");
  }

  void readWorkspace(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    // `upload` is a client-side directory (agents spec §4); the same file may be
    // loaded by the server, which accepts and ignores it.
    checkKeys(v, path, {"path", "git", "upload"});
    if (const auto* upload = v.find("upload"); upload && upload->kind != Kind::null)
      expectKind(*upload, Kind::string, joinPath(path, "upload"));
    optionalString(v, "path", path, spec.workspace.path);
    if (auto problem = workspacePathProblem(spec.workspace.path))
      fail(joinPath(path, "path"), *problem);
    if (const auto* git = v.find("git")) readGit(*git, joinPath(path, "git"), spec);
  }

  void readGit(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null) return;
    GitSpec git;
    if (v.kind == Kind::string) {  // shorthand: git: https://host/repo.git
      if (auto url = string(v, path)) git.url = std::move(*url);
      if (auto problem = gitUrlProblem(git.url)) fail(path, *problem);
      spec.workspace.git = std::move(git);
      return;
    }
    if (!expectKind(v, Kind::object, path)) return;
    checkKeys(v, path, {"url", "ref", "depth", "token"});
    if (const auto* depth = v.find("depth"); depth && depth->kind != Kind::null) {
      const std::int64_t n = depth->kind == Kind::integer ? depth->integer : -1;
      if (n < 0 || n > 1'000'000)
        fail(joinPath(path, "depth"), "must be an integer from 0 (the whole history) to 1000000");
      else
        git_depth_ = static_cast<int>(n);
    }
    if (auto url = requiredString(v, "url", path)) {
      git.url = std::move(*url);
      if (auto problem = gitUrlProblem(git.url)) fail(joinPath(path, "url"), *problem);
    }
    if (const auto* ref = v.find("ref"); ref && ref->kind != Kind::null) {
      if (auto s = string(*ref, joinPath(path, "ref"))) {
        git.ref = std::move(*s);
        if (auto problem = gitRefProblem(git.ref)) fail(joinPath(path, "ref"), *problem);
      }
    }
    secretString(v, "token", path, git.token);
    spec.workspace.git = std::move(git);
  }

  EnvList readEnvMap(const ConfigValue& v, const std::string& path, EnvKind kind) {
    EnvList out;
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return out;
    for (const auto& [name, value] : v.members) {
      const std::string entry_path = joinPath(path, name);
      if (auto problem = envNameProblem(name, kind)) {
        fail(entry_path, *problem);
        continue;
      }
      if (kind == EnvKind::secret && credentialRef(value, entry_path)) {
        out.emplace_back(name, "");
        continue;
      }
      if (auto text = scalarText(value, entry_path)) out.emplace_back(name, std::move(*text));
    }
    return out;
  }

  void readPermissions(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null) return;
    auto text = string(v, path);
    if (!text) return;
    if (*text == "read_only")
      spec.permissions = Permissions::read_only;
    else if (*text == "workspace_write")
      spec.permissions = Permissions::workspace_write;
    else if (*text == "full_access")
      spec.permissions = Permissions::full_access;
    else
      fail(path, "must be read_only, workspace_write or full_access (got '" + *text + "')");
  }

  /** null: no limit; absent: the AgentLimits default. */
  template <class T>
  void readLimit(const ConfigValue& limits, std::string_view key, const std::string& prefix,
                 std::optional<T>& out) {
    const ConfigValue* v = limits.find(key);
    if (v == nullptr) return;
    const std::string path = joinPath(prefix, key);
    if (v->kind == Kind::null) {
      out.reset();
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (v->kind != Kind::integer && v->kind != Kind::number)
        return fail(path, "must be a number or null (got " + std::string(kindName(v->kind)) + ")");
      if (!std::isfinite(v->number) || !(v->number > 0))
        return fail(path, "must be a positive number");
      out = v->number;
    } else {
      if (v->kind != Kind::integer)
        return fail(path,
                    "must be an integer or null (got " + std::string(kindName(v->kind)) + ")");
      if (v->integer <= 0) return fail(path, "must be a positive integer");
      if (static_cast<std::uint64_t>(v->integer) >
          static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        return fail(path, "is too large");
      out = static_cast<T>(v->integer);
    }
  }

  void readLimits(const ConfigValue& v, const std::string& path, AgentLimits& limits) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    checkKeys(v, path,
              {"turn_timeout_s", "idle_timeout_s", "max_turns", "max_budget_usd",
               "max_output_bytes", "cpu_seconds"});
    readLimit(v, "turn_timeout_s", path, limits.turn_timeout_s);
    readLimit(v, "idle_timeout_s", path, limits.idle_timeout_s);
    readLimit(v, "max_turns", path, limits.max_turns);
    readLimit(v, "max_budget_usd", path, limits.max_budget_usd);
    readLimit(v, "max_output_bytes", path, limits.max_output_bytes);
    readLimit(v, "cpu_seconds", path, limits.cpu_seconds);
  }

  void readCommand(const ConfigValue& root, AgentSpec& spec) {
    const std::string path = fieldPath("command");
    const ConfigValue* v = root.find("command");
    const bool present = v != nullptr && v->kind != Kind::null;
    const bool is_command_runtime = spec.runtime == "command";
    if (!present) {
      if (is_command_runtime) fail(path, "is required with runtime: command");
      return;
    }
    if (!spec.runtime.empty() && !is_command_runtime)
      fail(path, "is only allowed with runtime: command");
    if (!expectKind(*v, Kind::object, path)) return;
    checkKeys(*v, path, {"argv", "parser", "resume_argv"});
    CommandSpec command;
    if (const auto* argv = v->find("argv"); argv && argv->kind != Kind::null)
      command.argv = stringList(*argv, joinPath(path, "argv"));
    if (command.argv.empty() || command.argv[0].empty())
      fail(joinPath(path, "argv"), "must be a non-empty list whose first element names a program");
    optionalString(*v, "parser", path, command.parser);
    if (command.parser != "text" && command.parser != "jsonl-claude" &&
        command.parser != "jsonl-codex")
      fail(joinPath(path, "parser"),
           "must be text, jsonl-claude or jsonl-codex (got '" + command.parser + "')");
    if (const auto* resume = v->find("resume_argv"))
      command.resume_argv = stringList(*resume, joinPath(path, "resume_argv"));
    spec.command = std::move(command);
  }

  int git_depth_ = 1;
};

}  // namespace

std::string DefinitionError::text() const { return path.empty() ? message : path + ": " + message; }

std::string DefinitionResult::errorText() const {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.text();
  }
  return out;
}

DefinitionResult parseAgentDefinition(const ConfigValue& tree, const DefinitionOptions& options,
                                      std::string_view path_prefix) {
  AgentSpecReader reader(options, std::string(path_prefix));
  DefinitionResult result;
  result.spec = reader.read(tree);
  result.errors = reader.takeErrors();
  result.credential_refs = reader.takeCredentialRefs();
  result.git_depth = reader.gitDepth();
  return result;
}

std::vector<std::string> registrationWarnings(const AgentSpec& spec, bool has_credential_refs) {
  std::vector<std::string> warnings;
  if (spec.permissions == Permissions::full_access &&
      (has_credential_refs || !SecretBag::of(spec).empty()))
    warnings.push_back("agent '" + spec.name +
                       "' has full_access and secrets: a prompt-injected agent can read its own "
                       "environment and exfiltrate them; prefer workspace_write or read_only and "
                       "short-lived, scoped keys");
  return warnings;
}

DefinitionResult parseAgentDefinitionBody(const ConfigValue& body,
                                          const RuntimePredicate& known_runtime) {
  DefinitionOptions options;  // a body is never expanded: `${` in it is literal text
  options.known_runtime = known_runtime;
  return parseAgentDefinition(body, options);
}

DefinitionResult parseAgentDefinitionBody(std::string_view json_body,
                                          const RuntimePredicate& known_runtime) {
  auto tree = configFromJson(json_body);
  if (tree) return parseAgentDefinitionBody(*tree, known_runtime);
  DefinitionResult result;
  result.errors.push_back({"", tree.status().message()});
  return result;
}

}  // namespace abx::plugins::agents
