// SessionRequest: the body of POST /pty/sessions, validated, and the spawn
// options it becomes under the endpoint's policy (params.shells,
// params.env_deny) and the PathGuard (cwd).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/host_context.h"
#include "abx/sdk/http.h"
#include "pty_process.h"

namespace abx::plugins::terminal {

struct SessionRequest {
  int cols = 80;
  int rows = 24;
  std::optional<std::string> shell;
  std::optional<std::string> cwd;
  std::map<std::string, std::string> env;
};

/** A 4xx answer, ready to send. */
struct RequestError {
  int status = 400;
  std::string message;
  std::string type = "ValueError";
  std::string code;
};

/** Parses {cols?, rows?, shell?, cwd?, env?}; a wrong type or value is a 400. */
std::variant<SessionRequest, RequestError> parseSessionRequest(const sdk::Json& body);

/** Reads {cols, rows} (both required) for resize. */
std::variant<std::pair<int, int>, RequestError> parseSize(const sdk::Json& body);

/** What the host gives a session besides the request. */
struct SpawnContext {
  const sdk::PathGuard* paths = nullptr;
  sdk::ChildEnvironment* environment = nullptr;
  const sdk::Params* params = nullptr; /**< pty_create's params; null: no rules */
  std::string base_dir; /**< default cwd when the guard's base is refused or missing */
};

/**
 * The shell (request, else /bin/bash, else /bin/sh, restricted by
 * params.shells), the environment (the host's ChildEnvironment, TERM, the
 * request's env, minus params.env_deny and the host's protected names), the
 * cwd (through the PathGuard; without one, the guard's base directory, else
 * @p context.base_dir, else /) and the terminal's size.
 */
std::variant<sdk::SpawnOptions, RequestError> buildSpawnOptions(const SessionRequest& request,
                                                                const SpawnContext& context);

/**
 * True when @p shell (as asked, and as resolved) is on @p allowed; the file
 * behind it must be allowed as well (shellFileAllowed, shell_identity.h).
 */
bool shellAllowed(const std::string& asked, const std::string& resolved,
                  const std::vector<std::string>& allowed);

}  // namespace abx::plugins::terminal
