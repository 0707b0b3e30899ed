#include "browser_session.h"

#include <Poco/Base64Decoder.h>
#include <Poco/JSON/Array.h>
#include <Poco/JSON/Parser.h>
#include <Poco/JSON/Stringifier.h>

#include <cmath>
#include <sstream>
#include <thread>

#include "abx/sdk/json.h"

namespace abx::plugins::browser {
namespace {

using std::chrono::milliseconds;
using Object = Poco::JSON::Object;

constexpr milliseconds kStartTimeout{30000};
constexpr milliseconds kOperationTimeout{30000};

Object::Ptr params() { return new Object; }

std::string stringify(const Poco::Dynamic::Var& value) {
  if (value.isEmpty()) return "null";
  std::ostringstream out;
  Poco::JSON::Stringifier::stringify(value, out);
  return out.str();
}

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
  cdp_ = std::make_unique<CdpClient>(*chromium_);
  guard_ = std::make_unique<RequestGuard>(*cdp_, rules_);
  cdp_->onEvent([this](const std::string& method, const Object::Ptr& p, const std::string& id) {
    handleEvent(method, p, id);
  });
  // Every target starts paused and armed; the page's session arrives as an event.
  const auto deadline = Clock::now() + kStartTimeout;
  auto outcome = [](const sdk::Result<Object::Ptr>& r) {
    return r ? sdk::Status::ok() : r.status();
  };
  sdk::Status started =
      outcome(cdp_->call("Target.setAutoAttach", RequestGuard::autoAttachParams(), deadline));
  if (started)
    started = cdp_->pumpUntil([this] { return !guard_->pageSession().empty(); }, deadline);
  for (const char* domain :
       {"Page.enable", "Page.setLifecycleEventsEnabled", "Runtime.enable", "Network.enable"}) {
    if (!started) break;
    auto p = params();
    if (std::string(domain) == "Page.setLifecycleEventsEnabled") p->set("enabled", true);
    started = outcome(cdp_->call(domain, p, deadline, guard_->pageSession()));
  }
  if (!started) {
    teardown();
    return BrowserError{500, "Cannot start Chromium: " + started.message(), "BrowserError", {}, {}};
  }
  return std::nullopt;
}

void BrowserSession::handleEvent(const std::string& method, const Object::Ptr& p,
                                 const std::string& session_id) {
  if (guard_ && guard_->handle(method, p, session_id)) return;
  if (!guard_ || session_id != guard_->pageSession()) return;  // frames and workers: not ours
  if (method == "Page.lifecycleEvent") {
    // The main frame's, keyed by loader: a late event of an earlier document
    // (an error page, say) never ends the wait for the next one.
    const auto name = p->optValue<std::string>("name", "");
    auto& seen = name == "load" ? loaded_ : dom_ready_;
    if ((name == "load" || name == "DOMContentLoaded") && seen.size() < 64 &&
        p->optValue<std::string>("frameId", "") == guard_->pageTarget())
      seen.insert(p->optValue<std::string>("loaderId", ""));
  } else if (method == "Network.responseReceived") {
    if (p->optValue<std::string>("type", "") != "Document") return;
    auto response = p->getObject("response");
    if (response && document_status_.size() < 64)
      document_status_[p->optValue<std::string>("requestId", "")] =
          response->optValue<int>("status", 0);
  } else if (method == "Runtime.consoleAPICalled") {
    ConsoleEntry entry;
    entry.type = p->optValue<std::string>("type", "log");
    entry.timestamp = p->optValue<double>("timestamp", 0) / 1000.0;
    if (auto args = p->getArray("args")) {
      for (std::size_t i = 0; i < args->size(); ++i) {
        auto arg = args->getObject(static_cast<unsigned>(i));
        if (!arg) continue;
        if (!entry.text.empty()) entry.text += ' ';
        if (arg->has("value")) {
          auto v = arg->get("value");
          entry.text += v.isString() ? v.extract<std::string>() : stringify(v);
        } else if (arg->has("unserializableValue")) {
          entry.text += arg->getValue<std::string>("unserializableValue");
        } else {
          entry.text +=
              arg->optValue<std::string>("description", arg->optValue<std::string>("type", ""));
        }
      }
    }
    console_.add(std::move(entry));
  }
}

std::variant<Object::Ptr, BrowserError> BrowserSession::call(const std::string& method,
                                                             const Object::Ptr& p,
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

std::variant<Poco::Dynamic::Var, BrowserError> BrowserSession::evaluateValue(
    const std::string& expression, Clock::time_point deadline, int timeout_ms) {
  auto p = params();
  p->set("expression", expression);
  p->set("returnByValue", true);
  p->set("awaitPromise", true);
  p->set("userGesture", true);
  if (timeout_ms > 0) p->set("timeout", timeout_ms);
  auto r = call("Runtime.evaluate", p, deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  auto result = std::get<Object::Ptr>(r);
  if (auto details = result->getObject("exceptionDetails")) {
    std::string text = details->optValue<std::string>("text", "Uncaught");
    if (auto exception = details->getObject("exception"))
      text = exception->optValue<std::string>("description", text);
    return BrowserError{400, text, "EvaluationError", {}, {}};
  }
  auto value = result->getObject("result");
  if (!value) return Poco::Dynamic::Var();
  if (value->has("value")) return value->get("value");
  if (value->has("unserializableValue")) return value->get("unserializableValue");
  return Poco::Dynamic::Var();
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
  auto p = params();
  p->set("url", url);
  auto r = call("Page.navigate", p, deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  auto result = std::get<Object::Ptr>(r);
  const auto error_text = result->optValue<std::string>("errorText", "");
  if (!error_text.empty())
    return navigationFailure(url, error_text, guard_->refusalsSince(guard_from),
                             proxy_->outcomesSince(proxy_from));
  const auto loader = result->optValue<std::string>("loaderId", "");
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
  auto object = std::get<Poco::Dynamic::Var>(facts).extract<Object::Ptr>();
  std::string body = "{\"url\":" + sdk::jsonQuote(object->optValue<std::string>("url", url));
  body += ",\"title\":" + sdk::jsonQuote(object->optValue<std::string>("title", ""));
  auto status = document_status_.find(loader);
  body += ",\"status\":";
  body += status == document_status_.end() ? "null" : std::to_string(status->second);
  return body + "}";
}

Reply BrowserSession::screenshot(int width, int height, bool full_page) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  const auto deadline = Clock::now() + kOperationTimeout;
  auto metrics = params();
  metrics->set("width", width);
  metrics->set("height", height);
  metrics->set("deviceScaleFactor", 1);
  metrics->set("mobile", false);
  if (auto r = call("Emulation.setDeviceMetricsOverride", metrics, deadline);
      std::holds_alternative<BrowserError>(r))
    return std::get<BrowserError>(r);
  auto shot = params();
  shot->set("format", "png");
  if (full_page) {
    auto layout = call("Page.getLayoutMetrics", params(), deadline);
    if (auto* e = std::get_if<BrowserError>(&layout)) return *e;
    auto size = std::get<Object::Ptr>(layout)->getObject("cssContentSize");
    if (size) {
      width = static_cast<int>(std::ceil(size->optValue<double>("width", width)));
      height = static_cast<int>(std::ceil(size->optValue<double>("height", height)));
    }
    auto clip = params();
    clip->set("x", 0);
    clip->set("y", 0);
    clip->set("width", width);
    clip->set("height", height);
    clip->set("scale", 1);
    shot->set("clip", clip);
    shot->set("captureBeyondViewport", true);
  }
  auto r = call("Page.captureScreenshot", shot, deadline);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  const auto data = std::get<Object::Ptr>(r)->optValue<std::string>("data", "");
  return "{\"image_base64\":\"" + data + "\",\"width\":" + std::to_string(width) +
         ",\"height\":" + std::to_string(height) + "}";
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
  auto object = std::get<Poco::Dynamic::Var>(value).extract<Object::Ptr>();
  return "{\"content\":" + sdk::jsonQuote(object->optValue<std::string>("content", "")) +
         ",\"url\":" + sdk::jsonQuote(object->optValue<std::string>("url", "")) +
         ",\"title\":" + sdk::jsonQuote(object->optValue<std::string>("title", "")) + "}";
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
    auto& var = std::get<Poco::Dynamic::Var>(value);
    if (!var.isEmpty() && var.type() == typeid(Object::Ptr)) {
      auto point = var.extract<Object::Ptr>();
      return std::pair{point->getValue<double>("x"), point->getValue<double>("y")};
    }
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
    auto p = params();
    p->set("type", type);
    p->set("x", x);
    p->set("y", y);
    p->set("button", std::string(type) == "mouseMoved" ? "none" : "left");
    p->set("clickCount", std::string(type) == "mouseMoved" ? 0 : 1);
    if (auto r = call("Input.dispatchMouseEvent", p, deadline);
        std::holds_alternative<BrowserError>(r))
      return std::get<BrowserError>(r);
  }
  return "{\"clicked\":true,\"selector\":" + sdk::jsonQuote(selector) + "}";
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
  auto p = params();
  p->set("text", text);
  if (auto r = call("Input.insertText", p, deadline); std::holds_alternative<BrowserError>(r))
    return std::get<BrowserError>(r);
  return "{\"typed\":true,\"selector\":" + sdk::jsonQuote(selector) +
         ",\"text\":" + sdk::jsonQuote(text) + "}";
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
  return "{\"result\":" + stringify(std::get<Poco::Dynamic::Var>(value)) + "}";
}

Reply BrowserSession::pdf(PaperSize paper, bool landscape) {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  auto p = params();
  p->set("landscape", landscape);
  p->set("paperWidth", paper.width_in);
  p->set("paperHeight", paper.height_in);
  p->set("printBackground", true);
  auto r = call("Page.printToPDF", p, Clock::now() + kOperationTimeout);
  if (auto* e = std::get_if<BrowserError>(&r)) return *e;
  const auto data = std::get<Object::Ptr>(r)->optValue<std::string>("data", "");
  std::istringstream encoded(data);
  Poco::Base64Decoder decoder(encoded);
  std::string bytes((std::istreambuf_iterator<char>(decoder)), std::istreambuf_iterator<char>());
  return "{\"pdf_base64\":\"" + data + "\",\"pages\":" + std::to_string(countPdfPages(bytes)) + "}";
}

Reply BrowserSession::console() {
  std::lock_guard lock(mutex_);
  if (auto e = ensureStarted()) return *e;
  // ensureStarted() read the console events waiting in the socket.
  return consoleJson(console_.take());
}

}  // namespace abx::plugins::browser
