// RequestGuard: the CDP half of the browser's network policy. It owns the
// browser-wide auto-attach: every target Chromium creates (the page, its
// out-of-process frames, workers, service workers) starts paused, gets
// Fetch interception of every request ("*"), and only then runs; a second
// page (window.open) is armed the same way and closed. Each paused request is
// judged on its full URL (judgeUrl: scheme, url_deny, url_allow) and
// continued or failed with BlockedByClient, which the page sees as a
// network error. Host, port and address are judged again by the SOCKS
// proxy for every connection, WebSockets included (Fetch does not see them).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cdp_client.h"
#include "url_policy.h"

namespace abx::plugins::browser {

class RequestGuard {
 public:
  using RulesSource = std::function<UrlRules()>;

  /** A request the guard failed. */
  struct RefusedRequest {
    std::uint64_t sequence = 0;
    std::string url;
    bool document = false; /**< a navigation (of any frame) */
    UrlVerdict verdict;
  };

  RequestGuard(CdpClient& cdp, RulesSource rules) : cdp_(cdp), rules_(std::move(rules)) {}

  /** The browser-wide auto-attach (params of Target.setAutoAttach); the page's session
   *  arrives as an event. */
  static std::string autoAttachParams();

  /** Handles Target.* and Fetch.* events; false for anything else. */
  bool handle(const std::string& method, const sdk::Json& params, const std::string& session_id);

  /** The shared page's session ("" until it attached). */
  const std::string& pageSession() const { return page_session_; }
  /** The shared page's target id (also its main frame's id). */
  const std::string& pageTarget() const { return page_target_; }
  /** True once the shared page went away (the browser must start again). */
  bool pageLost() const { return page_lost_; }

  std::uint64_t nextSequence() const { return sequence_; }
  /** Refusals recorded at or after @p sequence, oldest first (the last 64 kept). */
  std::vector<RefusedRequest> refusalsSince(std::uint64_t sequence) const;

 private:
  void attached(const sdk::Json& params);
  void paused(const sdk::Json& params, const std::string& session_id);
  /** Fetch interception and nested auto-attach for one target, then let it run. */
  void arm(const std::string& session_id, bool page);

  CdpClient& cdp_;
  RulesSource rules_;
  std::string page_session_;
  std::string page_target_;
  bool page_lost_ = false;
  std::vector<RefusedRequest> refusals_;
  std::uint64_t sequence_ = 1;
};

}  // namespace abx::plugins::browser
