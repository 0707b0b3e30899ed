// Handlers share one BrowserSession (one page, operations serialised); they
// run on worker threads and wait for each other.
#include "browser_plugin.h"

#include "abx/sdk/metrics.h"
#include "abx/sdk/route_table.h"
#include "browser_routes.h"
#include "browser_vocabulary.h"
#include "url_policy.h"

namespace abx::plugins::browser {

sdk::Status BrowserPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {"browser", true,
           "Headless Chromium: navigate, screenshot, content, click, type, evaluate, PDF, "
           "console",
           browserParams()});
      !s)
    return s;
  sdk::ChildEnvironment* environment = &host.environment();
  // The URL policy is browser_navigate's rule (defaults included), read
  // anew for every request and connection of the page: it governs what the
  // page loads whichever route started it (a reload takes effect at once).
  const sdk::HostContext* context = &host;
  auto session =
      std::make_shared<BrowserSession>([environment] { return environment->snapshot(); },
                                       [context] {
                                         auto policy = context->endpointPolicy("browser_navigate");
                                         return policy ? rulesOf(policy->params) : UrlRules{};
                                       });
  session->countRestarts(&host.metrics()
                              .counter("abx_browser_chromium_restarts_total",
                                       "Chromium started again after the one before it died "
                                       "or lost its page.",
                                       {})
                              .labels({}));

  const std::vector<std::string> use{"browser:use"};
  if (auto s = sdk::addRoutes(
          host.routes(), "browser", session,
          {
              {"POST", "/browser/navigate", "browser_navigate", "Open a URL in the shared page",
               use, &navigateRoute},
              {"POST", "/browser/screenshot", "browser_screenshot", "PNG screenshot of the page",
               use, &screenshotRoute},
              {"GET", "/browser/content", "browser_content", "The page's HTML or text", use,
               &contentRoute},
              {"POST", "/browser/click", "browser_click", "Click the element a selector finds", use,
               &clickRoute},
              {"POST", "/browser/type", "browser_type",
               "Type text into the element a selector finds", use, &typeRoute},
              {"POST", "/browser/evaluate", "browser_evaluate", "Evaluate JavaScript in the page",
               use, &evaluateRoute},
              {"POST", "/browser/pdf", "browser_pdf", "Print the page to PDF", use, &pdfRoute},
              {"GET", "/browser/console", "browser_console", "Console messages since the last read",
               use, &consoleRoute},
          });
      !s)
    return s;
  session_ = std::move(session);
  return sdk::Status::ok();
}

void BrowserPlugin::stop() noexcept {
  try {
    if (session_) session_->stop();
  } catch (...) {
  }
}

std::unique_ptr<sdk::Plugin> makeBrowserPlugin(sdk::HostContext&) {
  return std::make_unique<BrowserPlugin>();
}

}  // namespace abx::plugins::browser
