// The abx.browser plugin: owns the opt-in `browser` group and serves the
// eight routes of spec §4.8 by driving one headless Chromium over the Chrome
// DevTools Protocol (docs/browser.md).
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "browser_session.h"

namespace abx::plugins::browser {

class BrowserPlugin final : public sdk::Plugin {
 public:
  /** Declares the group (opt-in) and adds the eight routes; Chromium is not started. */
  sdk::Status start(sdk::HostContext& host) override;
  /** Kills Chromium. */
  void stop() noexcept override;

 private:
  std::shared_ptr<BrowserSession> session_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeBrowserPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::browser
