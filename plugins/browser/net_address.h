// Addresses the browser's network policy judges: which ones are private
// (block_private_networks) and what a host resolves to. Names of the
// .localhost family are loopback without asking DNS (RFC 6761), as Chromium
// treats them; IP literals are their own address; other names go through
// getaddrinfo(3).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"
#include "whatwg_url.h"

namespace abx::plugins::browser {

/** Loopback, RFC 1918, link-local, CGNAT, unspecified, multicast, unique-local... */
bool isPrivateAddress(const sockaddr_storage& address);
/** The same for numeric text ("10.0.0.1", "::1"); anything else counts as private. */
bool isPrivateAddress(std::string_view numeric_address);

/** "localhost", "a.localhost" (either with a trailing dot). */
bool isLocalhostName(std::string_view domain);

/** Numeric text of @p address ("127.0.0.1", "::1"). */
std::string addressText(const sockaddr_storage& address);

/**
 * Every address @p host resolves to, each with @p port set. Failures have
 * type OSError ("Cannot resolve host ...").
 */
sdk::Result<std::vector<sockaddr_storage>> resolveHost(const ParsedHost& host, int port);

}  // namespace abx::plugins::browser
