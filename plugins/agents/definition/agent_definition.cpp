// The definition parser: walks a ConfigValue, reports every problem with its
// dotted path, and fills AgentSpec. Validation rules live in
// definition_rules.h; this file decides where each rule applies.
#include "definition/agent_definition.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <type_traits>

#include "definition/definition_rules.h"
#include "secrets/secret_bag.h"

namespace abx::plugins::agents {
namespace {

using sdk::agents::AgentLimits;
using sdk::agents::AgentSpec;
using sdk::agents::CommandSpec;
using sdk::agents::EnvList;
using sdk::agents::GitSpec;
using sdk::agents::McpHeader;
using sdk::agents::McpServerSpec;
using sdk::agents::Permissions;
using Kind = ConfigValue::Kind;

std::string join(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  return std::string(prefix) + "." + std::string(key);
}

std::string indexed(std::string_view prefix, std::size_t i) {
  return std::string(prefix) + "[" + std::to_string(i) + "]";
}

/** One pass over one definition; collects errors instead of stopping at the first. */
class DefinitionReader {
 public:
  explicit DefinitionReader(const DefinitionOptions& options) : options_(options) {}

  std::vector<DefinitionError> takeErrors() { return std::move(errors_); }
  std::vector<CredentialRef> takeCredentialRefs() { return std::move(refs_); }

  void fail(std::string path, std::string message) {
    errors_.push_back({std::move(path), std::move(message)});
  }

  bool expectKind(const ConfigValue& v, Kind kind, const std::string& path) {
    if (v.kind == kind) return true;
    fail(path, "must be " +
                   std::string(kind == Kind::array || kind == Kind::object ? "an " : "a ") +
                   std::string(kindName(kind)) + " (got " + std::string(kindName(v.kind)) + ")");
    return false;
  }

  /** Reports members of @p object that are not in @p allowed. */
  void checkKeys(const ConfigValue& object, const std::string& path,
                 std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, value] : object.members) {
      bool known = false;
      for (auto a : allowed) known = known || key == a;
      if (!known) fail(join(path, key), "unknown key");
    }
  }

  /**
   * A string value, ${VAR}-expanded when the options say so. @p had_placeholder
   * (optional) learns whether the source text held a placeholder.
   */
  std::optional<std::string> string(const ConfigValue& v, const std::string& path,
                                    bool* had_placeholder = nullptr) {
    if (!expectKind(v, Kind::string, path)) return std::nullopt;
    return expand(v.text, path, had_placeholder);
  }

  /** Scalars as text (env: {LOG_LEVEL: 3} is "3"); arrays, objects and null are errors. */
  std::optional<std::string> scalarText(const ConfigValue& v, const std::string& path) {
    if (v.kind == Kind::string) return expand(v.text, path, nullptr);
    if (v.kind == Kind::null || !v.isScalar()) {
      fail(path, "must be a string (got " + std::string(kindName(v.kind)) + ")");
      return std::nullopt;
    }
    return v.text;
  }

  /** An optional string field: absent or null leaves @p out unchanged. */
  void optionalString(const ConfigValue& object, std::string_view key, const std::string& prefix,
                      std::string& out) {
    const ConfigValue* v = object.find(key);
    if (v == nullptr || v->kind == Kind::null) return;
    if (auto s = string(*v, join(prefix, key))) out = std::move(*s);
  }

  std::vector<std::string> stringList(const ConfigValue& v, const std::string& path) {
    std::vector<std::string> out;
    if (v.kind == Kind::null) return out;
    if (!expectKind(v, Kind::array, path)) return out;
    for (std::size_t i = 0; i < v.items.size(); ++i)
      if (auto s = string(v.items[i], indexed(path, i))) out.push_back(std::move(*s));
    return out;
  }

  /**
   * YAML and JSON both let a key repeat; the later value would silently win
   * (or, for YAML, both would be read), so a repeated key is an error.
   */
  void checkDuplicateKeys(const ConfigValue& v, const std::string& path) {
    if (v.kind == Kind::array) {
      for (std::size_t i = 0; i < v.items.size(); ++i)
        checkDuplicateKeys(v.items[i], indexed(path, i));
    }
    if (v.kind != Kind::object) return;
    for (std::size_t i = 0; i < v.members.size(); ++i) {
      const auto& key = v.members[i].first;
      for (std::size_t j = 0; j < i; ++j)
        if (v.members[j].first == key) {
          fail(join(path, key), "duplicate key");
          break;
        }
      checkDuplicateKeys(v.members[i].second, join(path, key));
    }
  }

  AgentSpec read(const ConfigValue& root, const std::string& prefix) {
    AgentSpec spec;
    prefix_ = prefix;
    if (!expectKind(root, Kind::object, prefix)) return spec;
    checkDuplicateKeys(root, prefix);
    checkKeys(root, prefix,
              {"name", "runtime", "model", "instructions", "provider", "workspace", "env",
               "secrets", "mcp_servers", "permissions", "limits", "extra_args", "command"});

    readName(root, prefix, spec);
    readRuntime(root, prefix, spec);
    optionalString(root, "model", prefix, spec.model);
    optionalString(root, "instructions", prefix, spec.instructions);
    if (const auto* v = root.find("provider")) readProvider(*v, join(prefix, "provider"), spec);
    if (const auto* v = root.find("workspace")) readWorkspace(*v, join(prefix, "workspace"), spec);
    if (const auto* v = root.find("env"))
      spec.env = readEnvMap(*v, join(prefix, "env"), EnvKind::env);
    if (const auto* v = root.find("secrets"))
      spec.secrets = readEnvMap(*v, join(prefix, "secrets"), EnvKind::secret);
    for (const auto& [name, value] : spec.secrets)
      for (const auto& [env_name, env_value] : spec.env)
        if (env_name == name)
          fail(join(join(prefix, "secrets"), name), "is also set in env; use one of them");
    if (const auto* v = root.find("mcp_servers"))
      readMcpServers(*v, join(prefix, "mcp_servers"), spec);
    if (const auto* v = root.find("permissions"))
      readPermissions(*v, join(prefix, "permissions"), spec);
    if (const auto* v = root.find("limits")) readLimits(*v, join(prefix, "limits"), spec.limits);
    if (const auto* v = root.find("extra_args"))
      spec.extra_args = stringList(*v, join(prefix, "extra_args"));
    readCommand(root, prefix, spec);
    return spec;
  }

 private:
  /**
   * A secret slot given as a credential reference {vault, credential}: the
   * reference is recorded (credential_ref.h) and the slot stays empty until a
   * turn starts. False when @p v is not a reference.
   */
  bool credentialRef(const ConfigValue& v, const std::string& path) {
    if (v.kind != Kind::object || (!v.find("vault") && !v.find("credential"))) return false;
    checkKeys(v, path, {"vault", "credential"});
    CredentialRef ref;
    ref.slot =
        path.size() > prefix_.size() && !prefix_.empty() ? path.substr(prefix_.size() + 1) : path;
    for (auto [key, out] : {std::pair{"vault", &ref.vault}, {"credential", &ref.credential}}) {
      const ConfigValue* part = v.find(key);
      if (part == nullptr || part->kind == Kind::null) {
        fail(join(path, key), "is required in a credential reference");
        continue;
      }
      if (!expectKind(*part, Kind::string, join(path, key))) continue;
      if (part->text.empty()) fail(join(path, key), "must not be empty");
      *out = part->text;
    }
    refs_.push_back(std::move(ref));
    return true;
  }

  /** optionalString() for a slot that may hold a credential reference. */
  void secretString(const ConfigValue& object, std::string_view key, const std::string& prefix,
                    std::string& out) {
    if (const ConfigValue* v = object.find(key); v && credentialRef(*v, join(prefix, key))) return;
    optionalString(object, key, prefix, out);
  }

  std::optional<std::string> expand(const std::string& text, const std::string& path,
                                    bool* had_placeholder) {
    if (!options_.expand_placeholders) {
      // Unexpanded text (HTTP bodies): a "${" still marks what the author meant as a secret.
      if (had_placeholder) *had_placeholder = text.find("${") != std::string::npos;
      return text;
    }
    auto expanded = expandPlaceholders(text, options_.env);
    if (!expanded.error.empty()) {
      fail(path, expanded.error);
      return std::nullopt;
    }
    if (had_placeholder) *had_placeholder = expanded.had_placeholder;
    return std::move(expanded.value);
  }

  void readName(const ConfigValue& root, const std::string& prefix, AgentSpec& spec) {
    const std::string path = join(prefix, "name");
    const ConfigValue* v = root.find("name");
    if (v == nullptr || v->kind == Kind::null) return fail(path, "is required");
    auto name = string(*v, path);
    if (!name) return;
    if (!isValidAgentName(*name))
      return fail(path, "must match [A-Za-z0-9._-]{1,64} and not be '.' or '..'");
    spec.name = std::move(*name);
  }

  void readRuntime(const ConfigValue& root, const std::string& prefix, AgentSpec& spec) {
    const std::string path = join(prefix, "runtime");
    const ConfigValue* v = root.find("runtime");
    if (v == nullptr || v->kind == Kind::null) return fail(path, "is required");
    auto runtime = string(*v, path);
    if (!runtime) return;
    if (!isValidRuntimeName(*runtime)) return fail(path, "must match [A-Za-z0-9._-]{1,64}");
    if (options_.known_runtime && !options_.known_runtime(*runtime))
      return fail(path, "unknown runtime '" + *runtime + "'");
    spec.runtime = std::move(*runtime);
  }

  void readProvider(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    checkKeys(v, path, {"base_url", "api_key", "wire_api"});
    optionalString(v, "base_url", path, spec.provider.base_url);
    if (!spec.provider.base_url.empty())
      if (auto problem = httpUrlProblem(spec.provider.base_url))
        fail(join(path, "base_url"), *problem);
    secretString(v, "api_key", path, spec.provider.api_key);
    optionalString(v, "wire_api", path, spec.provider.wire_api);
    const auto& wire = spec.provider.wire_api;
    if (!wire.empty() && wire != "responses" && wire != "chat")
      fail(join(path, "wire_api"), "must be responses or chat (got '" + wire + "')");
  }

  void readWorkspace(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    // `upload` is a client-side directory (agents spec §4); the same file may be
    // loaded by the server, which accepts and ignores it.
    checkKeys(v, path, {"path", "git", "upload"});
    if (const auto* upload = v.find("upload"); upload && upload->kind != Kind::null)
      expectKind(*upload, Kind::string, join(path, "upload"));
    optionalString(v, "path", path, spec.workspace.path);
    if (auto problem = workspacePathProblem(spec.workspace.path))
      fail(join(path, "path"), *problem);
    if (const auto* git = v.find("git")) readGit(*git, join(path, "git"), spec);
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
    checkKeys(v, path, {"url", "ref", "token"});
    const ConfigValue* url = v.find("url");
    if (url == nullptr || url->kind == Kind::null) {
      fail(join(path, "url"), "is required");
    } else if (auto s = string(*url, join(path, "url"))) {
      git.url = std::move(*s);
      if (auto problem = gitUrlProblem(git.url)) fail(join(path, "url"), *problem);
    }
    if (const auto* ref = v.find("ref"); ref && ref->kind != Kind::null) {
      if (auto s = string(*ref, join(path, "ref"))) {
        git.ref = std::move(*s);
        if (auto problem = gitRefProblem(git.ref)) fail(join(path, "ref"), *problem);
      }
    }
    secretString(v, "token", path, git.token);
    spec.workspace.git = std::move(git);
  }

  EnvList readEnvMap(const ConfigValue& v, const std::string& path, EnvKind kind) {
    EnvList out;
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return out;
    for (const auto& [name, value] : v.members) {
      const std::string entry_path = join(path, name);
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

  void readMcpServers(const ConfigValue& v, const std::string& path, AgentSpec& spec) {
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return;
    for (const auto& [name, value] : v.members) {
      const std::string server_path = join(path, name);
      if (!isValidMcpServerName(name)) {
        fail(server_path, "server name must match [A-Za-z0-9_-]{1,40}");
        continue;
      }
      if (!expectKind(value, Kind::object, server_path)) continue;
      checkKeys(value, server_path, {"url", "headers", "command", "args", "allowed_tools"});
      McpServerSpec server;
      server.name = name;
      optionalString(value, "url", server_path, server.url);
      optionalString(value, "command", server_path, server.command);
      if (server.url.empty() == server.command.empty()) {
        fail(server_path, server.url.empty() ? "needs either url or command"
                                             : "give either url or command, not both");
      }
      if (!server.url.empty())
        if (auto problem = httpUrlProblem(server.url)) fail(join(server_path, "url"), *problem);
      if (const auto* headers = value.find("headers")) {
        if (!server.command.empty() && headers->kind != Kind::null)
          fail(join(server_path, "headers"), "only allowed with url");
        server.headers = readHeaders(*headers, join(server_path, "headers"));
      }
      if (const auto* args = value.find("args")) {
        if (!server.url.empty() && args->kind != Kind::null)
          fail(join(server_path, "args"), "only allowed with command");
        server.args = stringList(*args, join(server_path, "args"));
      }
      if (const auto* tools = value.find("allowed_tools")) {
        const std::string tools_path = join(server_path, "allowed_tools");
        server.allowed_tools = stringList(*tools, tools_path);
        for (std::size_t i = 0; i < server.allowed_tools.size(); ++i)
          if (!isValidMcpToolName(server.allowed_tools[i]))
            fail(indexed(tools_path, i), "tool name must match [A-Za-z0-9_-]{1,64}");
      }
      spec.mcp_servers.push_back(std::move(server));
    }
  }

  std::vector<McpHeader> readHeaders(const ConfigValue& v, const std::string& path) {
    std::vector<McpHeader> out;
    if (v.kind == Kind::null || !expectKind(v, Kind::object, path)) return out;
    for (const auto& [name, value] : v.members) {
      const std::string header_path = join(path, name);
      if (!isValidHeaderName(name)) {
        fail(header_path, "is not a valid HTTP header name");
        continue;
      }
      McpHeader header;
      header.name = name;
      bool had_placeholder = false;
      std::optional<std::string> text;
      if (credentialRef(value, header_path)) {
        header.secret = true;
        out.push_back(std::move(header));
        continue;
      }
      if (value.kind == Kind::object) {  // {value: ..., secret: true}
        checkKeys(value, header_path, {"value", "secret"});
        const ConfigValue* inner = value.find("value");
        if (inner == nullptr) {
          fail(join(header_path, "value"), "is required");
        } else {
          text = string(*inner, join(header_path, "value"), &had_placeholder);
        }
        if (const auto* secret = value.find("secret"); secret && secret->kind != Kind::null) {
          if (expectKind(*secret, Kind::boolean, join(header_path, "secret")))
            header.secret = secret->boolean;
        }
      } else if (value.kind == Kind::string) {
        text = string(value, header_path, &had_placeholder);
      } else {
        fail(header_path,
             "must be a string or {value, secret} (got " + std::string(kindName(value.kind)) + ")");
      }
      if (!text) continue;
      if (auto problem = headerValueProblem(*text)) {
        fail(header_path, *problem);
        continue;
      }
      // secret: false never downgrades a placeholder or a credential header.
      header.secret = header.secret || had_placeholder || isCredentialHeaderName(name);
      header.value = std::move(*text);
      out.push_back(std::move(header));
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
    const std::string path = join(prefix, key);
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

  void readCommand(const ConfigValue& root, const std::string& prefix, AgentSpec& spec) {
    const std::string path = join(prefix, "command");
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
      command.argv = stringList(*argv, join(path, "argv"));
    if (command.argv.empty() || command.argv[0].empty())
      fail(join(path, "argv"), "must be a non-empty list whose first element names a program");
    optionalString(*v, "parser", path, command.parser);
    if (command.parser != "text" && command.parser != "jsonl-claude" &&
        command.parser != "jsonl-codex")
      fail(join(path, "parser"),
           "must be text, jsonl-claude or jsonl-codex (got '" + command.parser + "')");
    if (const auto* resume = v->find("resume_argv"))
      command.resume_argv = stringList(*resume, join(path, "resume_argv"));
    spec.command = std::move(command);
  }

  const DefinitionOptions& options_;
  std::vector<DefinitionError> errors_;
  std::vector<CredentialRef> refs_;
  std::string prefix_;
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
  DefinitionReader reader(options);
  DefinitionResult result;
  result.spec = reader.read(tree, std::string(path_prefix));
  result.errors = reader.takeErrors();
  result.credential_refs = reader.takeCredentialRefs();
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
