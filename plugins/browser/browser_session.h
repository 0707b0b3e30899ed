// BrowserSession: the one shared headless Chromium page of the browser
// group. Chromium starts on the first call (never at server start) together
// with its SOCKS proxy and the request guard (the network policy), every
// call is serialised by one mutex (one page, one DevTools pipe), a Chromium
// that died is started again on the next call, and stop() kills it. Each
// operation answers with the JSON body of its route or a BrowserError.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "abx/sdk/metrics.h"
#include "cdp_client.h"
#include "chromium_process.h"
#include "console_ring.h"
#include "pdf_facts.h"
#include "request_guard.h"
#include "socks_proxy.h"

namespace abx::plugins::browser {

struct BrowserError {
  int status = 500;
  std::string message;
  std::string type = "BrowserError";
  std::string code;
  std::string rule; /**< the policy rule that refused a navigation */
};

/** A route's 200 body, or why it failed. */
using Reply = std::variant<std::string, BrowserError>;

/** The 503 body's message when no chromium is in the child PATH. */
inline constexpr const char* kNotInstalled =
    "Chromium is not installed. Install the Debian package 'chromium' (apt-get install "
    "chromium) to use the browser endpoints.";

class BrowserSession {
 public:
  /**
   * @p child_env: the environment Chromium starts with (read at each start).
   * @p rules: the URL policy in force, read for every request and connection.
   */
  BrowserSession(std::function<std::vector<std::string>()> child_env,
                 RequestGuard::RulesSource rules);
  ~BrowserSession();

  Reply navigate(const std::string& url, std::chrono::milliseconds timeout, bool wait_for_load);
  Reply screenshot(int width, int height, bool full_page);
  Reply content(bool text);
  Reply click(const std::string& selector, std::chrono::milliseconds timeout);
  Reply type(const std::string& selector, const std::string& text, bool clear,
             std::chrono::milliseconds timeout);
  Reply evaluate(const std::string& script, std::chrono::milliseconds timeout);
  Reply pdf(PaperSize paper, bool landscape);
  Reply console();

  /** Kills Chromium (if running) and drops the connection. */
  void stop();
  /** Chromium's pid, or -1 when it is not running (tests kill it). */
  pid_t chromiumPid();
  /** Counts each start of Chromium after the first in @p restarts. Before the first request. */
  void countRestarts(sdk::CounterCell* restarts) { restarts_ = restarts; }

 private:
  /** Starts Chromium and connects to its page unless both are alive. Lock held. */
  std::optional<BrowserError> ensureStarted();
  void teardown();
  void handleEvent(const std::string& method, const sdk::Json& params,
                   const std::string& session_id);
  /** A CDP call to the page (@p params: a JSON object's text), its failure made a
   *  BrowserError (a broken pipe tears down). */
  std::variant<sdk::Json, BrowserError> call(const std::string& method, std::string_view params,
                                             Clock::time_point deadline);
  /** Runtime.evaluate by value (missing for undefined); a thrown exception is a 400
   *  EvaluationError. */
  std::variant<sdk::Json, BrowserError> evaluateValue(const std::string& expression,
                                                      Clock::time_point deadline,
                                                      int timeout_ms = 0);
  /** Polls for a visible element until @p deadline: its centre, scrolled into view. */
  std::variant<std::pair<double, double>, BrowserError> waitForElement(
      const std::string& selector, std::chrono::milliseconds timeout);

  std::function<std::vector<std::string>()> child_env_;
  RequestGuard::RulesSource rules_;
  std::mutex mutex_;
  std::unique_ptr<SocksProxy> proxy_;
  std::unique_ptr<ChromiumProcess> chromium_;
  std::unique_ptr<CdpClient> cdp_;
  std::unique_ptr<RequestGuard> guard_;
  sdk::CounterCell* restarts_ = nullptr;
  bool started_before_ = false;  // under mutex_
  ConsoleRing console_;
  std::set<std::string> loaded_;    /**< loaderIds whose document fired "load" */
  std::set<std::string> dom_ready_; /**< loaderIds whose document fired "DOMContentLoaded" */
  std::map<std::string, int> document_status_; /**< requestId -> HTTP status of documents */
};

/**
 * Why a navigation to @p url failed with Chromium's @p error_text: a
 * document the guard refused (403 url_not_allowed with its rule), else a
 * connection the proxy refused (the same; the URL's own host preferred),
 * else 502 NavigationError with what the proxy met (connection refused...)
 * in place of Chromium's generic SOCKS error.
 */
BrowserError navigationFailure(const std::string& url, const std::string& error_text,
                               const std::vector<RequestGuard::RefusedRequest>& refusals,
                               const std::vector<SocksProxy::Outcome>& outcomes);

/** A BrowserError from a Status of the CDP layer (TimeoutError -> 408, else 500). */
BrowserError fromStatus(const sdk::Status& status);

}  // namespace abx::plugins::browser
