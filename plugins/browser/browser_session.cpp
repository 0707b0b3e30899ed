#include "browser_session.h"

#include <cmath>
#include <thread>

#include "abx/sdk/json.h"
#include "abx/sdk/text_codecs.h"

namespace abx::plugins::browser {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kStartTimeout{30000};
constexpr milliseconds kOperationTimeout{30000};

std::string pathOfEnv(const std::vector<std::string>& env) {
  for (const auto& e : env)
    if (e.starts_with("PATH=")) return e.substr(5);
  return "/usr/local/bin:/usr/bin:/bin";
}

/** JavaScript that finds @p selector: null when absent or not rendered, else its centre. */
std::string locateScript(const std::string& selector) {
  return "(() => { const el = document.querySelector(" + sdk::jsonQuote(selector) +
         "); if (!el) return null; el.scrollIntoView({block: 'center', inline: 'center'});"
         " const r = el.getBoundingClientRect(); if (r.width === 0 && r.height === 0) return null;"
         " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()";
}

}  // namespace

BrowserError fromStatus(const sdk::Status& status) {
  if (status.type() == "TimeoutError") return {408, status.message(), "TimeoutError", {}, {}};
  return {500, status.message(), "BrowserError", {}, {}};
}

BrowserSession::BrowserSession(std::function<std::vector<std::string>()> child_env,
                               RequestGuard::RulesSource rules)
    : child_env_(std::move(child_env)), rules_(std::move(rules)) {}

BrowserSession::~BrowserSession() { stop(); }

void BrowserSession::stop() {
  std::lock_guard lock(mutex_);
  teardown();
}

pid_t BrowserSession::chromiumPid() {
  std::lock_guard lock(mutex_);
  return chromium_ && chromium_->alive() ? chromium_->pid() : -1;
}

void BrowserSession::teardown() {
  guard_.reset();
  cdp_.reset();
  chromium_.reset();  // kills Chromium's group: its proxy connections end
  proxy_.reset();
}

std::optional<BrowserError> BrowserSession::ensureStarted() {
  if (cdp_) cdp_->drain();
  if (chromium_ && chromium_->alive() && cdp_ && !cdp_->broken() && guard_ && !guard_->pageLost() &&
      !guard_->pageSession().empty())
    return std::nullopt;
  teardown();
  auto env = child_env_();
  auto program = findChromium(pathOfEnv(env));
  if (!program) return BrowserError{503, kNotInstalled, "RuntimeError", {}, {}};
  auto proxy = SocksProxy::start([rules = rules_](const std::string& host, int port) {
    return decideConnection(host, port, rules());
  });
  if (!proxy) return BrowserError{500, proxy.status().message(), "BrowserError", {}, {}};
  proxy_ = std::move(proxy).value();
  auto launched = ChromiumProcess::launch(*program, std::move(env), proxy_->port());
  if (!launched) {
    teardown();
    return BrowserError{
        500, "Cannot start Chromium: " + launched.status().message(), "BrowserError", {}, {}};
  }
  chromium_ = std::move(launched).value();
  if (started_before_ && restarts_) restarts_->inc();
  started_before_ = true;
  cdp_ = std::make_unique<CdpClient>(*chromium_);
  guard_ = std::make_unique<RequestGuard>(*cdp_, rules_);
  cdp_->onEvent([this](const std::string& method, const sdk::Json& p, const std::string& id) {
    handleEvent(method, p, id);
  });
  // Every target starts paused and armed; the page's session arrives as an event.
  const auto deadline = Clock::now() + kStartTimeout;
  auto outcome = [](const sdk::Result<sdk::Json>& r) { return r ? sdk::Status::ok() : r.status(); };
  sdk::Status started =
      outcome(cdp_->call("Target.setAutoAttach", RequestGuard::autoAttachParams(), deadline));
  if (started)
    started = cdp_->pumpUntil([this] { return !guard_->pageSession().empty(); }, deadline);
  for (const char* domain :
       {"Page.enable", "Page.setLifecycleEventsEnabled", "Runtime.enable", "Network.enable"}) {
    if (!started) break;
    const std::string p = std::string(domain) == "Page.setLifecycleEventsEnabled"
                              ? cdpParams("enabled", true)
                              : std::string("{}");
    started = outcome(cdp_->call(domain, p, deadline, guard_->pageSession()));
  }
  if (!started) {
    teardown();
    return BrowserError{500, "Cannot start Chromium: " + started.message(), "BrowserError", {}, {}};
  }
  return std::nullopt;
}

void BrowserSession::handleEvent(const std::string& method, const sdk::Json& p,
                                 const std::string& session_id) {
  if (guard_ && guard_->handle(method, p, session_id)) return;
  if (!guard_ || session_id != guard_->pageSession()) return;  // frames and workers: not ours
  if (method == "Page.lifecycleEvent") {
    // The main frame's, keyed by loader: a late event of an earlier document
    // (an error page, say) never ends the wait for the next one.
    const auto name = cdpText(p, "name");
    auto& seen = name == "load" ? loaded_ : dom_ready_;
    if ((name == "load" || name == "DOMContentLoaded") && seen.size() < 64 &&
        cdpText(p, "frameId") == guard_->pageTarget())
      seen.insert(cdpText(p, "loaderId"));
  } else if (method == "Network.responseReceived") {
    if (cdpText(p, "type") != "Document") return;
    const sdk::Json response = p.get("response");
    if (response.isObject() && document_status_.size() < 64)
      document_status_[cdpText(p, "requestId")] =
          static_cast<int>(cdpNumber(response, "status", 0));
  } else if (method == "Runtime.consoleAPICalled") {
    ConsoleEntry entry;
    entry.type = cdpText(p, "type", "log");
    entry.timestamp = cdpNumber(p, "timestamp", 0) / 1000.0;
    for (const auto& arg : p.get("args").elements()) {
      if (!arg.isObject()) continue;
      if (!entry.text.empty()) entry.text += ' ';
      if (arg.has("value")) {
        const sdk::Json v = arg.get("value");
        entry.text += v.isString() ? std::string(v.stringView()) : v.dump();
      } else if (arg.has("unserializableValue")) {
        entry.text += cdpText(arg, "unserializableValue");
      } else {
        entry.text += cdpText(arg, "description", cdpText(arg, "type"));
      }
    }
    console_.add(std::move(entry));
  }
}

std::variant<sdk::Json, BrowserError> BrowserSession::call(const std::string& method,
                                                           std::string_view p,
                                                           Clock::time_point deadline) {
  auto r = cdp_->call(method, p, deadline, guard_->pageSession());
  if (r) return *r;
  if (cdp_->broken() || (chromium_ && !chromium_->alive())) {
    teardown();
    return BrowserError{
        500,
        "Chromium went away (" + r.status().message() + "); it starts again on the next request",
        "BrowserError",
        "chromium_gone",
        {}};
  }
  return fromStatus(r.status());
}

std::variant<sdk::Json, BrowserError> BrowserSession::evaluateValue(const std::string& expression,
                                                                    Clock::time_point deadline,
                                                                    int timeout_ms) {
  sdk::JsonWriter p;
  p.beginObject().member("expression", expression).member("returnByValue", true);
  p.member("awaitPromise", true).member("userGesture", true);
  if (timeout_ms > 0) p.member("timeout", timeout_ms);
  auto r = call("Runtime.evaluate", p.endObject().text(), deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  const auto& result = std::get<sdk::Json>(r);
  if (auto details = result.get("exceptionDetails"); details.isObject()) {
    std::string text = cdpText(details, "text", "Uncaught");
    if (auto exception = details.get("exception"); exception.isObject())
      text = cdpText(exception, "description", text);
    return BrowserError{400, text, "EvaluationError", {}, {}};
  }
  // undefined (and functions, symbols) come without a value: missing, written as null.
  const sdk::Json value = result.get("result");
  if (value.has("value")) return value.get("value");
  return value.get("unserializableValue");  // NaN, Infinity, -0, 1n: as their text
}

Reply BrowserSession::navigate(const std::string& url, milliseconds timeout, bool wait_for_load) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  const auto deadline = Clock::now() + timeout;
  loaded_.clear();
  dom_ready_.clear();
  document_status_.clear();
  const auto guard_from = guard_->nextSequence();
  const auto proxy_from = proxy_->nextSequence();
  auto r = call("Page.navigate", cdpParams("url", url), deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  const auto& result = std::get<sdk::Json>(r);
  const auto error_text = cdpText(result, "errorText");
  if (!error_text.empty())
    return navigationFailure(url, error_text, guard_->refusalsSince(guard_from),
                             proxy_->outcomesSince(proxy_from));
  const auto loader = cdpText(result, "loaderId");
  // A same-document navigation (#fragment) has no loader and no load event.
  if (!loader.empty()) {
    auto waited = cdp_->pumpUntil(
        [&] { return (wait_for_load ? loaded_ : dom_ready_).count(loader) > 0; }, deadline);
    if (!waited) {
      if (waited.type() == "TimeoutError")
        return BrowserError{
            408,
            "Navigation to " + url + " timed out after " + std::to_string(timeout.count()) + " ms",
            "TimeoutError",
            {},
            {}};
      if (cdp_->broken()) teardown();
      return fromStatus(waited);
    }
  }
  auto facts = evaluateValue("({url: location.href, title: document.title})", deadline);
  if (auto* e = std::get_if<BrowserError>(&facts)) return *e;
  const auto& page = std::get<sdk::Json>(facts);
  sdk::JsonWriter body;
  body.beginObject()
      .member("url", cdpText(page, "url", url))
      .member("title", cdpText(page, "title"));
  if (auto status = document_status_.find(loader); status != document_status_.end())
    body.member("status", status->second);
  else
    body.key("status").null();
  return body.endObject().take();
}

Reply BrowserSession::screenshot(int width, int height, bool full_page) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  const auto deadline = Clock::now() + kOperationTimeout;
  sdk::JsonWriter metrics;
  metrics.beginObject().member("width", width).member("height", height);
  metrics.member("deviceScaleFactor", 1).member("mobile", false).endObject();
  if (auto r = call("Emulation.setDeviceMetricsOverride", metrics.text(), deadline);
      std::holds_alternative<BrowserError>(r))
    return std::get<BrowserError>(r);
  sdk::JsonWriter shot;
  shot.beginObject().member("format", "png");
  if (full_page) {
    auto layout = call("Page.getLayoutMetrics", "{}", deadline);
    if (auto* e = std::get_if<BrowserError>(&layout)) return *e;
    if (auto size = std::get<sdk::Json>(layout).get("cssContentSize"); size.isObject()) {
      width = static_cast<int>(std::ceil(cdpNumber(size, "width", width)));
      height = static_cast<int>(std::ceil(cdpNumber(size, "height", height)));
    }
    shot.key("clip").beginObject().member("x", 0).member("y", 0).member("width", width);
    shot.member("height", height).member("scale", 1).endObject();
    shot.member("captureBeyondViewport", true);
  }
  auto r = call("Page.captureScreenshot", shot.endObject().text(), deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  return sdk::JsonWriter()
      .beginObject()
      .member("image_base64", cdpText(std::get<sdk::Json>(r), "data"))
      .member("width", width)
      .member("height", height)
      .endObject()
      .take();
}

Reply BrowserSession::content(bool text) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  const std::string content =
      text ? "(document.body ? document.body.innerText : '')"
           : "((document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')"
             " + (document.documentElement ? document.documentElement.outerHTML : ''))";
  auto value =
      evaluateValue("({content: " + content + ", url: location.href, title: document.title})",
                    Clock::now() + kOperationTimeout);
  if (auto* e = std::get_if<BrowserError>(&value)) return *e;
  const auto& page = std::get<sdk::Json>(value);
  return sdk::JsonWriter()
      .beginObject()
      .member("content", cdpText(page, "content"))
      .member("url", cdpText(page, "url"))
      .member("title", cdpText(page, "title"))
      .endObject()
      .take();
}

std::variant<std::pair<double, double>, BrowserError> BrowserSession::waitForElement(
    const std::string& selector, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const std::string script = locateScript(selector);
  while (true) {
    auto value = evaluateValue(script, Clock::now() + kOperationTimeout);
    if (auto* e = std::get_if<BrowserError>(&value)) {
      if (e->type == "EvaluationError") {
        e->type = "ValueError";
        e->message = "Invalid selector '" + selector + "': " + e->message;
      }
      return *e;
    }
    if (const auto& point = std::get<sdk::Json>(value); point.isObject())
      return std::pair{cdpNumber(point, "x"), cdpNumber(point, "y")};
    if (Clock::now() + milliseconds(50) >= deadline)
      return BrowserError{408,
                          "No visible element matches '" + selector + "' after " +
                              std::to_string(timeout.count()) + " ms",
                          "TimeoutError",
                          {},
                          {}};
    std::this_thread::sleep_for(milliseconds(50));
  }
}

Reply BrowserSession::click(const std::string& selector, milliseconds timeout) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  auto where = waitForElement(selector, timeout);
  if (auto* e = std::get_if<BrowserError>(&where)) return *e;
  const auto [x, y] = std::get<std::pair<double, double>>(where);
  const auto deadline = Clock::now() + kOperationTimeout;
  for (const char* type : {"mouseMoved", "mousePressed", "mouseReleased"}) {
    const bool move = std::string_view(type) == "mouseMoved";
    sdk::JsonWriter p;
    p.beginObject().member("type", type).member("x", x).member("y", y);
    p.member("button", move ? "none" : "left").member("clickCount", move ? 0 : 1).endObject();
    if (auto r = call("Input.dispatchMouseEvent", p.text(), deadline);
        std::holds_alternative<BrowserError>(r))
      return std::get<BrowserError>(r);
  }
  return sdk::JsonWriter()
      .beginObject()
      .member("clicked", true)
      .member("selector", selector)
      .endObject()
      .take();
}

Reply BrowserSession::type(const std::string& selector, const std::string& text, bool clear,
                           milliseconds timeout) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  auto where = waitForElement(selector, timeout);
  if (auto* e = std::get_if<BrowserError>(&where)) return *e;
  const auto deadline = Clock::now() + kOperationTimeout;
  std::string focus =
      "(() => { const el = document.querySelector(" + sdk::jsonQuote(selector) + "); el.focus();";
  if (clear)
    focus +=
        " if ('value' in el) { el.value = ''; el.dispatchEvent(new Event('input', "
        "{bubbles: true})); } else if (el.isContentEditable) { el.textContent = ''; }";
  focus += " return true; })()";
  auto focused = evaluateValue(focus, deadline);
  if (auto* e = std::get_if<BrowserError>(&focused)) return *e;
  if (auto r = call("Input.insertText", cdpParams("text", text), deadline);
      std::holds_alternative<BrowserError>(r))
    return std::get<BrowserError>(r);
  return sdk::JsonWriter()
      .beginObject()
      .member("typed", true)
      .member("selector", selector)
      .member("text", text)
      .endObject()
      .take();
}

Reply BrowserSession::evaluate(const std::string& script, milliseconds timeout) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  const auto started = Clock::now();
  // V8 stops the script at `timeout`; the reply gets a little longer.
  auto value = evaluateValue(script, started + timeout + milliseconds(2000),
                             static_cast<int>(timeout.count()));
  if (auto* e = std::get_if<BrowserError>(&value)) {
    // V8 ends a script at its timeout with an error ("Internal error"), or it never answers.
    if (Clock::now() - started >= timeout)
      return BrowserError{408,
                          "Script timed out after " + std::to_string(timeout.count()) + " ms",
                          "TimeoutError",
                          {},
                          {}};
    return *e;
  }
  // The value as Chromium wrote it (keys in the script's order), not re-encoded.
  return sdk::JsonWriter()
      .beginObject()
      .member("result", std::get<sdk::Json>(value))
      .endObject()
      .take();
}

Reply BrowserSession::pdf(PaperSize paper, bool landscape) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  sdk::JsonWriter p;
  p.beginObject().member("landscape", landscape).member("paperWidth", paper.width_in);
  p.member("paperHeight", paper.height_in).member("printBackground", true).endObject();
  auto r = call("Page.printToPDF", p.text(), Clock::now() + kOperationTimeout);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  const auto data = cdpText(std::get<sdk::Json>(r), "data");
  const std::string bytes = sdk::base64Decode(data).value_or("");
  return sdk::JsonWriter()
      .beginObject()
      .member("pdf_base64", data)
      .member("pages", countPdfPages(bytes))
      .endObject()
      .take();
}

Reply BrowserSession::console() {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  // ensureStarted() read the console events waiting in the socket.
  return consoleJson(console_.take());
}

}  // namespace abx::plugins::browser
