// GET /env and POST /env. Both work on the host's ChildEnvironment — the
// environment children are spawned with — never on the server's own
// environment, which holds its secrets and is not changed.
#pragma once

#include <functional>
#include <string_view>

#include "abx/sdk/child_environment.h"
#include "abx/sdk/http.h"
#include "abx/sdk/redactor.h"

namespace abx::plugins::system {

struct EnvContext {
  sdk::ChildEnvironment* environment = nullptr;
  /** Registered secrets are cut from values shown by GET /env; may be null. */
  const sdk::Redactor* redactor = nullptr;
  /** Names the host's set() would refuse (checked before anything is set):
   *  the plugin passes ChildEnvironment::isProtected. */
  std::function<bool(std::string_view)> host_refuses;
};

/** GET /env?filter=A,B -> {"variables": {...}} (sorted, sensitive names never shown). */
sdk::Response getEnv(const EnvContext& context, const sdk::Request& request);

/**
 * POST /env {"vars": {...}} -> {"updated": [sorted names]}. The whole body is
 * validated first (400 / 403 as env_rules.h describes); nothing is set
 * unless everything may be.
 */
sdk::Response setEnv(const EnvContext& context, const sdk::Request& request);

}  // namespace abx::plugins::system
