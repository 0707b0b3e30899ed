// Which URLs POST /browser/navigate may open: the scheme (http, https, or
// about:blank), the policy's url_deny and url_allow globs, and
// block_private_networks (every address the host resolves to must be
// public). Checked before the navigation only: a page's own redirects and
// subresources are not filtered.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::browser {

struct UrlParts {
  std::string scheme; /**< lower case */
  std::string host;   /**< lower case, IPv6 without brackets */
};

/** The scheme and host of an absolute URL; nullopt when it has none. */
std::optional<UrlParts> parseUrl(std::string_view url);

/**
 * True when one fnmatch(3) glob of @p patterns matches: a pattern with a
 * '/' against the whole URL, any other pattern against the host.
 */
bool urlMatches(const std::vector<std::string>& patterns, std::string_view url,
                const UrlParts& parts);

/** Loopback, private, link-local, CGNAT, unspecified, multicast, unique-local... */
bool isPrivateAddress(std::string_view numeric_address);

/** Why @p url may not be opened (the message of a 400 or 403), or nullopt. */
struct UrlVerdict {
  int status = 403;
  std::string message;
  std::string code; /**< url_not_allowed for policy refusals */
};
std::optional<UrlVerdict> checkUrl(std::string_view url, const sdk::Params& params);

}  // namespace abx::plugins::browser
