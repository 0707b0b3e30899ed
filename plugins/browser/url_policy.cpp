#include "url_policy.h"

#include <fnmatch.h>

#include <algorithm>

#include "browser_vocabulary.h"
#include "net_address.h"

namespace abx::plugins::browser {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool globMatches(const std::string& glob, const std::string& subject, bool fold_case) {
  return ::fnmatch(fold_case ? lower(glob).c_str() : glob.c_str(), subject.c_str(), 0) == 0;
}

bool anyHostNameMatches(const std::string& glob, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return globMatches(glob, n, true); });
}

std::string hrefWithoutFragment(const ParsedUrl& url) {
  ParsedUrl copy = url;
  copy.fragment.reset();
  return copy.href();
}

/**
 * The authority part of a whole-URL glob (for "https://" + "*.example.com/x":
 * "*.example.com"); nullopt when the glob does not pin one down.
 */
std::optional<std::string> authorityOf(const std::string& glob) {
  const auto marker = glob.find("://");
  if (marker == std::string::npos) return std::nullopt;
  const auto start = marker + 3;
  const auto end = glob.find('/', start);
  auto authority = glob.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (authority.find('@') != std::string::npos) return std::nullopt;  // userinfo: cannot tell
  return authority;
}

UrlVerdict refusal(std::string rule, std::string message) {
  return UrlVerdict{403, std::move(message), "url_not_allowed", std::move(rule)};
}

std::optional<UrlVerdict> judgeAddresses(const std::vector<sockaddr_storage>& addresses,
                                         const std::string& what) {
  for (const auto& a : addresses)
    if (isPrivateAddress(a))
      return refusal("block_private_networks",
                     what + " points into a private network (" + addressText(a) + ")");
  return std::nullopt;
}

}  // namespace

UrlRules rulesOf(const sdk::Params& params) {
  return UrlRules{params.strings(kUrlAllow), params.strings(kUrlDeny),
                  params.boolean(kBlockPrivateNetworks).value_or(false)};
}

std::vector<std::string> hostNames(const ParsedHost& host) {
  std::vector<std::string> names;
  if (host.kind == HostKind::ipv6) {
    names.push_back(host.text.substr(1, host.text.size() - 2));
    static const std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (std::equal(kMapped, kMapped + 12, host.address.begin()))
      names.push_back(std::to_string(host.address[12]) + "." + std::to_string(host.address[13]) +
                      "." + std::to_string(host.address[14]) + "." +
                      std::to_string(host.address[15]));
    return names;
  }
  names.push_back(host.text);
  if (host.kind == HostKind::domain && host.text.size() > 1 && host.text.ends_with('.'))
    names.push_back(host.text.substr(0, host.text.size() - 1));
  return names;
}

bool urlMatches(const std::vector<std::string>& globs, const ParsedUrl& url) {
  const auto names = hostNames(url.host);
  const auto whole = hrefWithoutFragment(url);
  for (const auto& glob : globs) {
    if (glob.find('/') != std::string::npos ? globMatches(glob, whole, false)
                                            : anyHostNameMatches(glob, names))
      return true;
  }
  return false;
}

std::optional<UrlVerdict> judgeUrl(const ParsedUrl& url, const UrlRules& rules) {
  if (url.scheme != "http" && url.scheme != "https")
    return refusal("scheme", "Only http and https URLs may be opened: " + url.href());
  if (rules.deny) {
    for (const auto& glob : *rules.deny)
      if (urlMatches({glob}, url))
        return refusal("url_deny " + glob,
                       "URL denied by policy (url_deny '" + glob + "'): " + url.href());
  }
  if (rules.allow && !urlMatches(*rules.allow, url))
    return refusal("url_allow",
                   "URL not allowed by policy (no url_allow glob matches): " + url.href());
  return std::nullopt;
}

std::optional<UrlVerdict> checkUrl(std::string_view text, const UrlRules& rules) {
  auto url = parseUrl(text);
  if (!url) return UrlVerdict{400, "Invalid URL: " + url.status().message(), {}, {}};
  if (url->scheme == "about" && lower(url->path) == "blank") return std::nullopt;
  if (url->scheme != "http" && url->scheme != "https")
    return UrlVerdict{400,
                      "Unsupported URL scheme '" + url->scheme +
                          "': only http, https and about:blank can be opened",
                      {},
                      {}};
  if (auto verdict = judgeUrl(*url, rules)) return verdict;
  if (!rules.block_private) return std::nullopt;
  auto addresses = resolveHost(url->host, url->effectivePort());
  if (!addresses)
    return refusal("block_private_networks",
                   addresses.status().message() + " (private networks are blocked)");
  return judgeAddresses(*addresses, "URL " + url->href());
}

ConnectDecision decideConnection(std::string_view host_text, int port, const UrlRules& rules) {
  ConnectDecision decision;
  auto host = parseHost(host_text, true);
  if (!host) {
    decision.refusal = UrlVerdict{400, "Invalid host " + std::string(host_text), {}, {}};
    return decision;
  }
  const auto names = hostNames(*host);
  const std::string where = host->text + ":" + std::to_string(port);
  if (rules.deny) {
    for (const auto& glob : *rules.deny)
      if (glob.find('/') == std::string::npos && anyHostNameMatches(glob, names)) {
        decision.refusal =
            refusal("url_deny " + glob,
                    "Connection to " + where + " denied by policy (url_deny '" + glob + "')");
        return decision;
      }
  }
  if (rules.allow) {
    const bool admitted = std::any_of(rules.allow->begin(), rules.allow->end(), [&](auto& glob) {
      if (glob.find('/') == std::string::npos) return anyHostNameMatches(glob, names);
      auto authority = authorityOf(glob);
      if (!authority) return true;  // the interception judges the whole URL
      auto subjects = names;
      subjects.push_back(host->text);  // "[::1]" for IPv6
      return std::any_of(subjects.begin(), subjects.end(), [&](const std::string& n) {
        return globMatches(*authority, n, true) ||
               globMatches(*authority, n + ":" + std::to_string(port), true);
      });
    });
    if (!admitted) {
      decision.refusal = refusal(
          "url_allow", "Connection to " + where + " not allowed by policy (no url_allow glob)");
      return decision;
    }
  }
  auto addresses = resolveHost(*host, port);
  if (!addresses) {
    decision.refusal = UrlVerdict{502, addresses.status().message(), {}, {}};
    return decision;
  }
  if (rules.block_private) decision.refusal = judgeAddresses(*addresses, "Connection to " + where);
  if (!decision.refusal) decision.addresses = *std::move(addresses);
  return decision;
}

}  // namespace abx::plugins::browser
