// The eight routes of the browser group (spec §4.8; docs/browser.md): request
// bodies and queries read and checked, then handed to the shared
// BrowserSession. Timeouts are milliseconds; <= 0 takes the default.
#pragma once

#include <chrono>
#include <memory>

#include "abx/sdk/http.h"
#include "browser_session.h"

namespace abx::plugins::browser {

sdk::Response navigateRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response screenshotRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response contentRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response clickRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response typeRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response evaluateRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response pdfRoute(BrowserSession& session, const sdk::Request& request);
sdk::Response consoleRoute(BrowserSession& session, const sdk::Request& request);

/**
 * The body's "timeout" in milliseconds: absent, null or <= 0 -> @p fallback;
 * never more than the policy's limits.timeout_seconds. nullopt when it is
 * not a number.
 */
std::optional<std::chrono::milliseconds> timeoutMs(const sdk::Request& request,
                                                   std::chrono::milliseconds fallback);

}  // namespace abx::plugins::browser
