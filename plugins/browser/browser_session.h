// BrowserSession: the one shared headless Chromium page of the browser
// group. Chromium starts on the first call (never at server start), every
// call is serialised by one mutex (one page, one DevTools connection), a
// Chromium that died is started again on the next call, and stop() kills it.
// Each operation answers with the JSON body of its route or a BrowserError.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cdp_client.h"
#include "chromium_process.h"
#include "console_ring.h"
#include "pdf_facts.h"

namespace abx::plugins::browser {

struct BrowserError {
  int status = 500;
  std::string message;
  std::string type = "BrowserError";
  std::string code;
};

/** A route's 200 body, or why it failed. */
using Reply = std::variant<std::string, BrowserError>;

/** The 503 body's message when no chromium is in the child PATH. */
inline constexpr const char* kNotInstalled =
    "Chromium is not installed. Install the Debian package 'chromium' (apt-get install "
    "chromium) to use the browser endpoints.";

class BrowserSession {
 public:
  /** @p child_env: the environment Chromium starts with (read at each start). */
  explicit BrowserSession(std::function<std::vector<std::string>()> child_env);
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

 private:
  /** Starts Chromium and connects to its page unless both are alive. Lock held. */
  std::optional<BrowserError> ensureStarted();
  void teardown();
  void handleEvent(const std::string& method, const Poco::JSON::Object::Ptr& params);
  /** A CDP call, its failure made a BrowserError (a broken connection tears down). */
  std::variant<Poco::JSON::Object::Ptr, BrowserError> call(const std::string& method,
                                                           const Poco::JSON::Object::Ptr& params,
                                                           Clock::time_point deadline);
  /** Runtime.evaluate by value; a thrown exception is a 400 EvaluationError. */
  std::variant<Poco::Dynamic::Var, BrowserError> evaluateValue(const std::string& expression,
                                                               Clock::time_point deadline,
                                                               int timeout_ms = 0);
  /** Polls for a visible element until @p deadline: its centre, scrolled into view. */
  std::variant<std::pair<double, double>, BrowserError> waitForElement(
      const std::string& selector, std::chrono::milliseconds timeout);

  std::function<std::vector<std::string>()> child_env_;
  std::mutex mutex_;
  std::unique_ptr<ChromiumProcess> chromium_;
  std::unique_ptr<CdpClient> cdp_;
  ConsoleRing console_;
  bool load_fired_ = false;
  bool dom_ready_ = false;
  std::map<std::string, int> document_status_; /**< requestId -> HTTP status of documents */
};

/** A BrowserError from a Status of the CDP layer (TimeoutError -> 408, else 500). */
BrowserError fromStatus(const sdk::Status& status);

}  // namespace abx::plugins::browser
