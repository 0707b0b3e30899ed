#include "session_request.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "shell_identity.h"
#include "terminal_vocabulary.h"
#include "ws_protocol.h"

namespace abx::plugins::terminal {
namespace {

RequestError badRequest(std::string message) { return {400, std::move(message), "ValueError", {}}; }

std::variant<int, RequestError> dimension(const sdk::Json& body, const char* key,
                                          std::optional<int> fallback) {
  const sdk::JsonKind kind = body.kind(key);
  if ((kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) && fallback) return *fallback;
  if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null)
    return badRequest(std::string("Missing required field '") + key + "'");
  if (kind != sdk::JsonKind::integer)
    return badRequest(std::string("Field '") + key + "' must be an integer");
  // An integer literal beyond 64 bits has the integer kind but no value.
  const auto value = body.integer(key);
  if (!value || *value < kMinDimension || *value > kMaxDimension)
    return badRequest(std::string("Field '") + key + "' must be between " +
                      std::to_string(kMinDimension) + " and " + std::to_string(kMaxDimension));
  return static_cast<int>(*value);
}

bool validEnvName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool denied(const std::string& name, const sdk::Params* params) {
  auto deny = params ? params->strings(kEnvDeny) : std::nullopt;
  if (!deny) return false;
  for (const auto& pattern : *deny)
    if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

bool isDirectory(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::variant<SessionRequest, RequestError> parseSessionRequest(const sdk::Json& body) {
  SessionRequest out;
  auto cols = dimension(body, "cols", 80);
  if (auto* e = std::get_if<RequestError>(&cols)) return *e;
  auto rows = dimension(body, "rows", 24);
  if (auto* e = std::get_if<RequestError>(&rows)) return *e;
  out.cols = std::get<int>(cols);
  out.rows = std::get<int>(rows);
  for (const char* key : {"shell", "cwd"}) {
    const sdk::JsonKind kind = body.kind(key);
    if (kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null) continue;
    if (kind != sdk::JsonKind::string)
      return badRequest(std::string("Field '") + key + "' must be a string");
    std::string value = *body.string(key);
    if (value.empty()) continue;  // "" means "the default"
    if (value.find('\0') != std::string::npos)
      return badRequest(std::string("Field '") + key + "' contains a NUL byte");
    (std::string_view(key) == "shell" ? out.shell : out.cwd) = std::move(value);
  }
  const sdk::JsonKind env_kind = body.kind("env");
  if (env_kind != sdk::JsonKind::missing && env_kind != sdk::JsonKind::null) {
    if (env_kind != sdk::JsonKind::object) return badRequest("Field 'env' must be an object");
    const sdk::Json env = *body.object("env");
    for (const auto& name : env.keys()) {
      if (!validEnvName(name))
        return badRequest("Invalid environment variable name in 'env': " + sdk::jsonQuote(name));
      if (env.kind(name) != sdk::JsonKind::string)
        return badRequest("Field 'env." + name + "' must be a string");
      std::string value = *env.string(name);
      if (value.find('\0') != std::string::npos)
        return badRequest("Field 'env." + name + "' contains a NUL byte");
      out.env[name] = std::move(value);
    }
  }
  return out;
}

std::variant<std::pair<int, int>, RequestError> parseSize(const sdk::Json& body) {
  auto cols = dimension(body, "cols", std::nullopt);
  if (auto* e = std::get_if<RequestError>(&cols)) return *e;
  auto rows = dimension(body, "rows", std::nullopt);
  if (auto* e = std::get_if<RequestError>(&rows)) return *e;
  return std::make_pair(std::get<int>(cols), std::get<int>(rows));
}

bool shellAllowed(const std::string& asked, const std::string& resolved,
                  const std::vector<std::string>& allowed) {
  for (const auto& entry : allowed) {
    if (entry == asked || entry == resolved) return true;
    // A bare name on the list ("bash") allows that program wherever it lives.
    if (entry.find('/') == std::string::npos && entry == baseName(resolved)) return true;
  }
  return false;
}

std::variant<sdk::SpawnOptions, RequestError> buildSpawnOptions(const SessionRequest& request,
                                                                const SpawnContext& context) {
  const sdk::Params* params = context.params;
  const auto shells = params ? params->strings(kShells) : std::nullopt;
  const std::vector<std::string>* allowed = shells ? &*shells : nullptr;

  // The environment first: a bare shell name is looked up in the child's PATH.
  std::map<std::string, std::string> vars;
  if (context.environment) {
    for (const auto& entry : context.environment->snapshot()) {
      auto eq = entry.find('=');
      if (eq == std::string::npos) continue;
      vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
  }
  vars["TERM"] = "xterm-256color";
  for (const auto& [name, value] : request.env) vars[name] = value;
  sdk::SpawnOptions out;
  for (const auto& [name, value] : vars) {
    // The request may name anything; the server's secrets still never pass.
    if (denied(name, params) || (context.environment && context.environment->isProtected(name)))
      continue;
    out.env.push_back(name + "=" + value);
  }

  std::string shell;
  if (request.shell) {
    auto resolved = resolveExecutable(*request.shell, out.env);
    if (allowed && (!shellAllowed(*request.shell, resolved.value_or(""), *allowed) ||
                    (resolved && !shellFileAllowed(*resolved, *allowed))))
      return RequestError{403, "Shell not allowed: " + *request.shell, "PermissionError",
                          "shell_not_allowed"};
    if (!resolved) return badRequest("Shell not found or not executable: " + *request.shell);
    shell = *resolved;
  } else {
    std::vector<std::string> candidates{"/bin/bash", "/bin/sh"};
    if (allowed) candidates.insert(candidates.end(), allowed->begin(), allowed->end());
    for (const auto& candidate : candidates) {
      auto resolved = resolveExecutable(candidate, out.env);
      if (!resolved) continue;
      if (allowed &&
          (!shellAllowed(candidate, *resolved, *allowed) || !shellFileAllowed(*resolved, *allowed)))
        continue;
      shell = *resolved;
      break;
    }
    if (shell.empty())
      return RequestError{allowed ? 403 : 500,
                          allowed ? "None of the allowed shells is available"
                                  : "No shell found (/bin/bash, /bin/sh)",
                          allowed ? "PermissionError" : "OSError",
                          allowed ? "shell_not_allowed" : ""};
  }
  out.argv = {shell};

  if (request.cwd) {
    const sdk::PathCheck verdict =
        context.paths->check("pty_create", *request.cwd, sdk::PathOp::read);
    if (!verdict.allowed)
      return RequestError{verdict.status, verdict.message,
                          verdict.status == 400 ? "ValueError" : "PermissionError", verdict.code};
    if (!isDirectory(verdict.resolved)) return badRequest("Not a directory: " + *request.cwd);
    out.cwd = verdict.resolved;
  } else {
    // The guard's base (the policy's base_dir wins over --base-dir), as the
    // process routes do; else the host's base dir; else /.
    sdk::PathCheck base;
    if (context.paths) base = context.paths->check("pty_create", ".", sdk::PathOp::read);
    if (base.allowed && isDirectory(base.resolved))
      out.cwd = base.resolved;
    else
      out.cwd = isDirectory(context.base_dir) ? context.base_dir : "/";
  }
  out.terminal = sdk::TerminalSize{request.rows, request.cols};
  return out;
}

}  // namespace abx::plugins::terminal
