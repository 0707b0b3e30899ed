// Base64 (RFC 4648, standard alphabet, padded) for the agents plugin's own
// needs: sealed state values and git's HTTP Basic header. OpenSSL's coder,
// which the plugin links for its cipher anyway.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace abx::plugins::agents {

std::string base64Encode(std::string_view bytes);

/** Standard or URL-safe base64, padding optional; nullopt for anything else. */
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace abx::plugins::agents
