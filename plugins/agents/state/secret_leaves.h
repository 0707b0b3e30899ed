// The secret-bearing strings of a stored agent body, found, taken out and
// put back: what agents_state.json keeps of an HTTP-created definition
// without ever writing one of its secrets in clear. A string that contains a
// secret (an API key, "Bearer <token>", https://<token>@host) is a secret
// leaf; in the file it reads with each secret replaced by kSecretNotKept,
// and the whole original string is kept sealed beside it, when there is a
// key. A leaf that still holds the marker after a restart is a secret the
// server did not keep.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "definition/config_tree.h"

namespace abx::plugins::agents {

/** Stands in for a secret that was not kept; a valid value in every secret slot. */
inline constexpr std::string_view kSecretNotKept = "abx-secret-not-kept";

struct SecretLeaf {
  std::string pointer; /**< JSON Pointer (RFC 6901) of the string in its tree */
  std::string value;   /**< the string as it was, secrets included */
};

/**
 * Replaces, in every string of @p tree that contains one of @p secrets, each
 * secret with kSecretNotKept; returns those strings as they were.
 */
std::vector<SecretLeaf> takeSecretLeaves(ConfigValue& tree,
                                         const std::vector<std::string>& secrets);

/** Sets the string at @p pointer to @p value; false when @p tree has no string there. */
bool putSecretLeaf(ConfigValue& tree, std::string_view pointer, std::string value);

/** The dotted paths ("provider.api_key", "tools[0].headers.Authorization")
 *  of the strings of @p tree that hold kSecretNotKept. */
std::vector<std::string> secretsNotKept(const ConfigValue& tree);

/** @p tree as JSON. */
void writeConfigValue(sdk::JsonWriter& w, const ConfigValue& tree);

}  // namespace abx::plugins::agents
