// How a refused or failed navigation is reported (browser_session.h).
#include "browser_session.h"

namespace abx::plugins::browser {

BrowserError navigationFailure(const std::string& url, const std::string& error_text,
                               const std::vector<RequestGuard::RefusedRequest>& refusals,
                               const std::vector<SocksProxy::Outcome>& outcomes) {
  for (auto it = refusals.rbegin(); it != refusals.rend(); ++it)
    if (it->document)
      return BrowserError{403, it->verdict.message, "PermissionError", "url_not_allowed",
                          it->verdict.rule};
  const auto parsed = parseUrl(url);
  const SocksProxy::Outcome* chosen = nullptr;
  for (const auto& o : outcomes) {
    if (!chosen || o.verdict.status == 403) chosen = &o;
    if (parsed && o.port == parsed->effectivePort() && parsed->host.text == o.host) {
      chosen = &o;
      break;
    }
  }
  if (chosen && chosen->verdict.status == 403)
    return BrowserError{403, chosen->verdict.message, "PermissionError", "url_not_allowed",
                        chosen->verdict.rule};
  std::string reason = error_text;
  if (chosen && error_text.find("ERR_SOCKS") != std::string::npos)
    reason = chosen->verdict.message;  // what the proxy met, not "the proxy said no"
  return BrowserError{
      502, "Navigation to " + url + " failed: " + reason, "NavigationError", {}, {}};
}

}  // namespace abx::plugins::browser
