#include "request_guard.h"

#include <Poco/JSON/Array.h>

namespace abx::plugins::browser {
namespace {

using Object = Poco::JSON::Object;

Object::Ptr object() { return new Object; }

/** Schemes that never reach the network: the guard lets them through. */
bool isLocalScheme(const std::string& scheme) {
  return scheme == "data" || scheme == "blob" || scheme == "about";
}

}  // namespace

Object::Ptr RequestGuard::autoAttachParams() {
  auto p = object();
  p->set("autoAttach", true);
  p->set("waitForDebuggerOnStart", true);
  p->set("flatten", true);
  return p;
}

bool RequestGuard::handle(const std::string& method, const Object::Ptr& params,
                          const std::string& session_id) {
  if (method == "Fetch.requestPaused") {
    paused(params, session_id);
  } else if (method == "Target.attachedToTarget") {
    attached(params);
  } else if (method == "Target.detachedFromTarget" || method == "Target.targetDestroyed") {
    if ((!page_session_.empty() &&
         params->optValue<std::string>("sessionId", "") == page_session_) ||
        (!page_target_.empty() && params->optValue<std::string>("targetId", "") == page_target_))
      page_lost_ = true;
  } else {
    return false;
  }
  return true;
}

void RequestGuard::arm(const std::string& session_id, bool page) {
  auto fetch = object();
  auto patterns = new Poco::JSON::Array;
  auto all = object();
  all->set("urlPattern", "*");
  patterns->add(all);
  fetch->set("patterns", Poco::JSON::Array::Ptr(patterns));
  // Workers without a Fetch domain answer an error nobody reads: their
  // requests are still seen by their page's interception and the proxy.
  cdp_.post("Fetch.enable", fetch, session_id);
  cdp_.post("Target.setAutoAttach", autoAttachParams(), session_id);
  if (page) {
    auto bypass = object();
    bypass->set("bypass", true);  // a service worker never answers for the page
    cdp_.post("Network.setBypassServiceWorker", bypass, session_id);
  }
  cdp_.post("Runtime.runIfWaitingForDebugger", object(), session_id);
}

void RequestGuard::attached(const Object::Ptr& params) {
  const auto session = params->optValue<std::string>("sessionId", "");
  auto info = params->getObject("targetInfo");
  if (session.empty() || !info) return;
  const auto type = info->optValue<std::string>("type", "");
  const bool waiting = params->optValue<bool>("waitingForDebugger", false);
  if (type == "page") {
    if (page_session_.empty()) {
      page_session_ = session;
      page_target_ = info->optValue<std::string>("targetId", "");
      arm(session, true);
    } else {
      // window.open: the API drives one page. The opener waits for the new
      // page to start, so it runs armed (its requests judged) and is closed.
      arm(session, false);
      auto close = object();
      close->set("targetId", info->optValue<std::string>("targetId", ""));
      cdp_.post("Target.closeTarget", close);
    }
  } else if (type == "iframe" || type == "worker" || type == "shared_worker" ||
             type == "service_worker") {
    arm(session, false);
  } else if (waiting) {
    cdp_.post("Runtime.runIfWaitingForDebugger", object(), session);
  }
}

void RequestGuard::paused(const Object::Ptr& params, const std::string& session_id) {
  const auto id = params->optValue<std::string>("requestId", "");
  auto request = params->getObject("request");
  const auto url = request ? request->optValue<std::string>("url", "") : std::string();
  std::optional<UrlVerdict> verdict;
  auto parsed = parseUrl(url);
  if (!parsed)
    verdict = UrlVerdict{403, "Unreadable request URL: " + url, "url_not_allowed", "scheme"};
  else if (!isLocalScheme(parsed->scheme))
    verdict = judgeUrl(*parsed, rules_());
  auto answer = object();
  answer->set("requestId", id);
  if (!verdict) {
    cdp_.post("Fetch.continueRequest", answer, session_id);
    return;
  }
  answer->set("errorReason", "BlockedByClient");
  cdp_.post("Fetch.failRequest", answer, session_id);
  refusals_.push_back(Refusal{
      sequence_++, url, params->optValue<std::string>("resourceType", "") == "Document", *verdict});
  if (refusals_.size() > 64) refusals_.erase(refusals_.begin());
}

std::vector<RequestGuard::Refusal> RequestGuard::refusalsSince(std::uint64_t sequence) const {
  std::vector<Refusal> out;
  for (const auto& r : refusals_)
    if (r.sequence >= sequence) out.push_back(r);
  return out;
}

}  // namespace abx::plugins::browser
