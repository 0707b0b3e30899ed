// plugins_fuzz sub-target: the browser plugin's URL policy (the WHATWG URL
// and host parsers, judgeUrl, checkUrl, decideConnection). No DNS: the
// resolving checks only run for IP literals and .localhost names, which
// resolve without asking.
//
// Input: a mode byte, then the text: a URL (even mode) or a host as a
// proxy's CONNECT names it (odd mode). Checked:
//   - a parsed URL's href parses again to the same href and host (what the
//     policy judged is what Chromium gets);
//   - with url_allow ["example.com", "*.example.org"] a URL that passes is
//     http(s) and its host, re-read from its href, is one of those;
//   - with block_private_networks a loopback or unspecified host (127/8,
//     ::1, ::, 0.0.0.0, ::ffff:127.x, *.localhost) never passes checkUrl or
//     decideConnection;
//   - an IP literal never passes a connection check against a host-only
//     url_allow list of names.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "net_address.h"
#include "url_policy.h"

namespace abx::fuzz {
namespace {

using namespace plugins::browser;

bool allowedName(std::string_view h) {
  if (h.ends_with('.')) h.remove_suffix(1);
  return h == "example.com" || h.ends_with(".example.org");  // fnmatch's * matches ""
}

bool loopbackOrUnspecified(const ParsedHost& host) {
  const auto& a = host.address;
  if (host.kind == HostKind::ipv4) return a[0] == 127 || (a[0] | a[1] | a[2] | a[3]) == 0;
  if (host.kind == HostKind::domain) return isLocalhostName(host.text);
  if (host.kind != HostKind::ipv6) return false;
  bool zero10 = true;
  for (int i = 0; i < 10; ++i) zero10 = zero10 && a[i] == 0;
  if (!zero10) return false;
  if (a[10] == 0xFF && a[11] == 0xFF) return a[12] == 127 || (a[12] | a[13] | a[14] | a[15]) == 0;
  bool zero15 = a[10] == 0 && a[11] == 0 && a[12] == 0 && a[13] == 0 && a[14] == 0;
  return zero15 && a[15] <= 1;
}

bool resolvesWithoutDns(const ParsedHost& host) {
  return host.kind == HostKind::ipv4 || host.kind == HostKind::ipv6 ||
         (host.kind == HostKind::domain && isLocalhostName(host.text));
}

void urlRules(std::string_view text) {
  auto url = parseUrl(text);
  if (!url) return;
  const std::string href = url->href();
  auto again = parseUrl(href);
  check(again && again->href() == href && again->host.text == url->host.text &&
            again->host.kind == url->host.kind,
        "href parses to itself", text);

  UrlRules allow;
  allow.allow = std::vector<std::string>{"example.com", "*.example.org"};
  if (!judgeUrl(*url, allow)) {
    check(url->scheme == "http" || url->scheme == "https", "only http(s) passes", text);
    check(allowedName(again->host.text), "a URL that passes has an allowed host", text);
  }
  if (resolvesWithoutDns(url->host) && loopbackOrUnspecified(url->host) &&
      (url->scheme == "http" || url->scheme == "https")) {
    UrlRules block;
    block.block_private = true;
    check(checkUrl(text, block).has_value(), "a loopback URL never passes", text);
  }
}

void hostRules(std::string_view text) {
  auto host = parseHost(text, true);
  if (!host || !resolvesWithoutDns(*host)) return;
  UrlRules block;
  block.block_private = true;
  if (loopbackOrUnspecified(*host))
    check(decideConnection(text, 443, block).refusal.has_value(),
          "a loopback connection never passes", text);
  if (host->kind == HostKind::ipv4 || host->kind == HostKind::ipv6) {
    UrlRules allow;
    allow.allow = std::vector<std::string>{"example.com", "*.example.org"};
    check(decideConnection(text, 443, allow).refusal.has_value(),
          "an IP literal is no allowed name", text);
  }
}

}  // namespace

void fuzzUrlPolicy(std::string_view data) {
  if (data.empty()) return;
  if (data[0] % 2 == 0)
    urlRules(data.substr(1));
  else
    hostRules(data.substr(1));
}

}  // namespace abx::fuzz
