#include "request_guard.h"

namespace abx::plugins::browser {
namespace {

/** Schemes that never reach the network: the guard lets them through. */
bool isLocalScheme(const std::string& scheme) {
  return scheme == "data" || scheme == "blob" || scheme == "about";
}

}  // namespace

std::string RequestGuard::autoAttachParams() {
  return sdk::JsonWriter()
      .beginObject()
      .member("autoAttach", true)
      .member("waitForDebuggerOnStart", true)
      .member("flatten", true)
      .endObject()
      .take();
}

bool RequestGuard::handle(const std::string& method, const sdk::Json& params,
                          const std::string& session_id) {
  if (method == "Fetch.requestPaused") {
    paused(params, session_id);
  } else if (method == "Target.attachedToTarget") {
    attached(params);
  } else if (method == "Target.detachedFromTarget" || method == "Target.targetDestroyed") {
    if ((!page_session_.empty() && cdpText(params, "sessionId") == page_session_) ||
        (!page_target_.empty() && cdpText(params, "targetId") == page_target_))
      page_lost_ = true;
  } else {
    return false;
  }
  return true;
}

void RequestGuard::arm(const std::string& session_id, bool page) {
  // Workers without a Fetch domain answer an error nobody reads: their
  // requests are still seen by their page's interception and the proxy.
  cdp_.post("Fetch.enable", R"({"patterns":[{"urlPattern":"*"}]})", session_id);
  cdp_.post("Target.setAutoAttach", autoAttachParams(), session_id);
  if (page)  // a service worker never answers for the page
    cdp_.post("Network.setBypassServiceWorker", cdpParams("bypass", true), session_id);
  cdp_.post("Runtime.runIfWaitingForDebugger", "{}", session_id);
}

void RequestGuard::attached(const sdk::Json& params) {
  const auto session = cdpText(params, "sessionId");
  const sdk::Json info = params.get("targetInfo");
  if (session.empty() || !info.isObject()) return;
  const auto type = cdpText(info, "type");
  const auto waiting_flag = params.get("waitingForDebugger").asBoolean(false);
  const bool waiting = waiting_flag && *waiting_flag;
  if (type == "page") {
    if (page_session_.empty()) {
      page_session_ = session;
      page_target_ = cdpText(info, "targetId");
      arm(session, true);
    } else {
      // window.open: the API drives one page. The opener waits for the new
      // page to start, so it runs armed (its requests judged) and is closed.
      arm(session, false);
      cdp_.post("Target.closeTarget", cdpParams("targetId", cdpText(info, "targetId")));
    }
  } else if (type == "iframe" || type == "worker" || type == "shared_worker" ||
             type == "service_worker") {
    arm(session, false);
  } else if (waiting) {
    cdp_.post("Runtime.runIfWaitingForDebugger", "{}", session);
  }
}

void RequestGuard::paused(const sdk::Json& params, const std::string& session_id) {
  const auto id = cdpText(params, "requestId");
  const auto url = cdpText(params.get("request"), "url");
  std::optional<UrlVerdict> verdict;
  auto parsed = parseUrl(url);
  if (!parsed)
    verdict = UrlVerdict{403, "Unreadable request URL: " + url, "url_not_allowed", "scheme"};
  else if (!isLocalScheme(parsed->scheme))
    verdict = judgeUrl(*parsed, rules_());
  if (!verdict) {
    cdp_.post("Fetch.continueRequest", cdpParams("requestId", id), session_id);
    return;
  }
  cdp_.post("Fetch.failRequest",
            sdk::JsonWriter()
                .beginObject()
                .member("requestId", id)
                .member("errorReason", "BlockedByClient")
                .endObject()
                .take(),
            session_id);
  refusals_.push_back(
      RefusedRequest{sequence_++, url, cdpText(params, "resourceType") == "Document", *verdict});
  if (refusals_.size() > 64) refusals_.erase(refusals_.begin());
}

std::vector<RequestGuard::RefusedRequest> RequestGuard::refusalsSince(
    std::uint64_t sequence) const {
  std::vector<RefusedRequest> out;
  for (const auto& r : refusals_)
    if (r.sequence >= sequence) out.push_back(r);
  return out;
}

}  // namespace abx::plugins::browser
