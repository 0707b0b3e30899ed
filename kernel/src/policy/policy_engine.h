// PolicyEngine: merges the five layers — default (opt-in groups off), code
// (plugins' enable/disable), preset, policy, environment
// (ABX_SERVER_ENABLED_GROUPS, on only) — into one EndpointPolicy per route.
// Per field, the most specific selector wins (exact id > glob > group: >
// @defaults); at equal specificity the later layer wins; inside one preset or
// policy document and one specificity a single `enabled: false` wins; in the
// code layer the last call for a group wins. Core cannot be disabled.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/status.h"
#include "environment/secret_environment.h"
#include "policy/code_toggle.h"
#include "policy/compiled_policy.h"
#include "policy/policy_document.h"
#include "routing/route_table.h"

namespace abx::kernel {

struct PolicyInputs {
  const RouteTable* routes = nullptr;
  std::vector<GroupRecord> groups;
  std::vector<CodeToggle> code;
  std::optional<PolicyDocument> preset; /**< the preset's document, if any */
  std::optional<PolicyDocument> policy; /**< the operator's policy, if any */
  std::vector<std::string> env_groups;  /**< validated ABX_SERVER_ENABLED_GROUPS */
  std::string base_dir = "/home/user";  /**< --base-dir / ABX_SERVER_BASE_DIR */
  /** SHA-256 of ABX_SERVER_TOKEN: identity "legacy", scope "*". */
  std::optional<TokenDigest> legacy_token;
  /** The digest of a token_env variable, nullopt when unset or empty.
   *  Default: SecretEnvironment, which wipes the variable from the server's
   *  environment on first use. Tests inject their own. */
  std::function<std::optional<TokenDigest>(const std::string&)> token_digest;
  bool strict = false; /**< warnings become errors */
  /** Absolute directories every endpoint's paths.deny gets (the server's state). */
  std::vector<std::string> private_dirs;
};

/**
 * Validates and merges. Fails (type ConfigError, with a did-you-mean hint)
 * on an unknown endpoint id or group in the policy layer, an attempt to
 * disable core, an unset token_env, or a duplicate token.
 */
sdk::Result<std::shared_ptr<const CompiledPolicy>> compilePolicy(const PolicyInputs& inputs,
                                                                 std::uint64_t revision);

/** Loads config/presets/<name>.yaml from @p preset_dir (did-you-mean on a bad name). */
sdk::Result<PolicyDocument> loadPreset(const std::string& preset_dir, const std::string& name);

/** The preset names, in a fixed order. */
const std::vector<std::string>& presetNames();

}  // namespace abx::kernel
