// CompiledPolicy: the result of merging every layer — one EndpointPolicy per
// route, the identities that may authenticate, and where audit records go.
// Immutable; a reload compiles a new one.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/policy.h"

namespace abx::kernel {

/** A caller that can authenticate: the SHA-256 of its token, never the token. */
struct TokenIdentity {
  std::string id;
  std::array<unsigned char, 32> digest{};
  std::vector<std::string> scopes;
};

struct CompiledPolicy {
  std::vector<sdk::EndpointPolicy> endpoints; /**< indexed by Route::index */
  std::string preset = "default";
  std::uint64_t revision = 0;
  std::string base_dir;                  /**< realpath of the boundary */
  std::vector<TokenIdentity> identities; /**< empty: the server is open */
  /** Environment names that hold tokens: never passed to children. */
  std::vector<std::string> secret_env_names;
  std::optional<std::string> audit_log; /**< "stderr" or a file path */
  std::vector<std::string> sources;     /**< e.g. "file:/etc/p.yaml" */
  std::vector<std::string> warnings;
};

}  // namespace abx::kernel
