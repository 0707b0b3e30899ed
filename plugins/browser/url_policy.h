// The browser's URL policy (docs/browser.md, "Policy"): url_deny and
// url_allow globs and block_private_networks, judged on URLs as Chromium
// parses them (whatwg_url.h) and on the addresses actually connected to.
// Three places ask it: the navigate route before Chromium sees the URL
// (checkUrl), the CDP interception of every request of the page
// (judgeUrl: the full URL, no DNS), and the plugin's SOCKS proxy for every
// connection Chromium opens (decideConnection: host, port and address).
#pragma once

#include <netinet/in.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/policy.h"
#include "whatwg_url.h"

namespace abx::plugins::browser {

/** The policy's three URL parameters. */
struct UrlRules {
  std::optional<std::vector<std::string>> allow;
  std::optional<std::vector<std::string>> deny;
  bool block_private = false;
};
UrlRules rulesOf(const sdk::Params& params);

/** Why a URL or connection is refused. */
struct UrlVerdict {
  int status = 403;
  std::string message;
  std::string code; /**< url_not_allowed for policy refusals; empty for a bad URL (400) */
  std::string rule; /**< "url_deny <glob>", "url_allow", "block_private_networks", "scheme" */
};

/**
 * The names a host glob is matched against: the canonical host (IPv6
 * without brackets), a domain also without its trailing dot, an
 * IPv4-mapped IPv6 address also as dotted IPv4.
 */
std::vector<std::string> hostNames(const ParsedHost& host);

/**
 * True when one fnmatch(3) glob of @p globs matches: a glob holding '/'
 * against the URL (href without fragment), any other against the host
 * names (case-insensitive).
 */
bool urlMatches(const std::vector<std::string>& globs, const ParsedUrl& url);

/** Scheme (http/https) and globs of a parsed URL: no DNS. */
std::optional<UrlVerdict> judgeUrl(const ParsedUrl& url, const UrlRules& rules);

/**
 * The navigate route's check: a 400 verdict for what is no http(s) URL
 * (about:blank passes), then judgeUrl, then with block_private_networks
 * every address the host resolves to must be public.
 */
std::optional<UrlVerdict> checkUrl(std::string_view url, const UrlRules& rules);

/** What the proxy does with one CONNECT: refuse, or connect to these addresses. */
struct ConnectDecision {
  std::optional<UrlVerdict> refusal;
  std::vector<sockaddr_storage> addresses;
};

/**
 * The proxy's check of a connection to @p host (as Chromium sent it) and
 * @p port: host globs; whole-URL globs only as far as a host can tell
 * (a url_allow glob whose authority cannot match refuses, url_deny globs
 * with '/' are left to the interception); then resolution and, with
 * block_private_networks, every address public.
 */
ConnectDecision decideConnection(std::string_view host, int port, const UrlRules& rules);

}  // namespace abx::plugins::browser
