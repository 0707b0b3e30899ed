#include "browser_routes.h"

#include <cmath>

#include "abx/sdk/http_error.h"
#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "url_policy.h"

namespace abx::plugins::browser {
namespace {

using std::chrono::milliseconds;

/** Runs @p op again once when Chromium died under it (the retry starts a new one). */
template <class Op>
Reply restarting(Op op) {
  Reply r = op();
  if (auto* e = std::get_if<BrowserError>(&r); e && e->code == "chromium_gone") r = op();
  return r;
}

/** The error body, plus "rule" (the policy rule that refused) when there is one. */
sdk::Response errorReply(int status, const std::string& message, const std::string& type,
                         const std::string& code, const std::string& rule) {
  sdk::HttpError error{status, message, type, code};
  if (!rule.empty()) error.fields.emplace_back("rule", rule);
  return error.toResponse();
}

sdk::Response reply(const Reply& r) {
  if (auto* body = std::get_if<std::string>(&r)) return sdk::Response::json(*body);
  const auto& e = std::get<BrowserError>(r);
  return errorReply(e.status, e.message, e.type, e.code, e.rule);
}

sdk::Response bad(std::string message) { return sdk::Response::error(400, message, "ValueError"); }

bool isAbsent(const sdk::Json& body, const char* key) {
  const auto kind = body.kind(key);
  return kind == sdk::JsonKind::missing || kind == sdk::JsonKind::null;
}

}  // namespace

std::optional<milliseconds> timeoutMs(const sdk::Request& request, milliseconds fallback) {
  milliseconds timeout = fallback;
  if (!isAbsent(request.json, "timeout")) {
    auto value = request.json.number("timeout");
    if (!value || !std::isfinite(*value)) return std::nullopt;
    if (*value > 0) timeout = milliseconds(static_cast<long long>(std::min(*value, 864e5)));
  }
  if (auto cap = sdk::policyTimeout(request.policy)) timeout = std::min(timeout, *cap);
  return timeout;
}

sdk::Response navigateRoute(BrowserSession& session, const sdk::Request& request) {
  auto url = request.json.string("url");
  if (!url) return bad(url.status().message());
  if (url->empty()) return bad("Field 'url' must not be empty");
  auto timeout = timeoutMs(request, milliseconds(30000));
  if (!timeout) return bad("Field 'timeout' must be a number of milliseconds");
  auto wait = request.json.string("wait_until", "load");
  if (!wait) return bad(wait.status().message());
  if (*wait != "load" && *wait != "domcontentloaded")
    return bad("Field 'wait_until' must be 'load' or 'domcontentloaded'");
  if (auto verdict = checkUrl(*url, rulesOf(request.policyParams())))
    return errorReply(verdict->status, verdict->message,
                      verdict->status == 400 ? "ValueError" : "PermissionError", verdict->code,
                      verdict->rule);
  return reply(restarting([&] { return session.navigate(*url, *timeout, *wait == "load"); }));
}

sdk::Response screenshotRoute(BrowserSession& session, const sdk::Request& request) {
  auto width = request.json.integer("width", 1280);
  auto height = request.json.integer("height", 720);
  auto full = request.json.boolean("full_page", false);
  if (!width) return bad(width.status().message());
  if (!height) return bad(height.status().message());
  if (!full) return bad(full.status().message());
  if (*width < 1 || *width > 8192 || *height < 1 || *height > 8192)
    return bad("Fields 'width' and 'height' must be between 1 and 8192");
  return reply(restarting([&] {
    return session.screenshot(static_cast<int>(*width), static_cast<int>(*height), *full);
  }));
}

sdk::Response contentRoute(BrowserSession& session, const sdk::Request& request) {
  const auto type = request.queryParam("type").value_or("html");
  if (type != "html" && type != "text") return bad("Query parameter 'type' must be html or text");
  return reply(restarting([&] { return session.content(type == "text"); }));
}

sdk::Response clickRoute(BrowserSession& session, const sdk::Request& request) {
  auto selector = request.json.string("selector");
  if (!selector) return bad(selector.status().message());
  if (selector->empty()) return bad("Field 'selector' must not be empty");
  auto timeout = timeoutMs(request, milliseconds(5000));
  if (!timeout) return bad("Field 'timeout' must be a number of milliseconds");
  return reply(restarting([&] { return session.click(*selector, *timeout); }));
}

sdk::Response typeRoute(BrowserSession& session, const sdk::Request& request) {
  auto selector = request.json.string("selector");
  if (!selector) return bad(selector.status().message());
  if (selector->empty()) return bad("Field 'selector' must not be empty");
  auto text = request.json.string("text");
  if (!text) return bad(text.status().message());
  auto clear = request.json.boolean("clear", false);
  if (!clear) return bad(clear.status().message());
  auto timeout = timeoutMs(request, milliseconds(5000));
  if (!timeout) return bad("Field 'timeout' must be a number of milliseconds");
  return reply(restarting([&] { return session.type(*selector, *text, *clear, *timeout); }));
}

sdk::Response evaluateRoute(BrowserSession& session, const sdk::Request& request) {
  auto script = request.json.string("script");
  if (!script) return bad(script.status().message());
  auto timeout = timeoutMs(request, milliseconds(10000));
  if (!timeout) return bad("Field 'timeout' must be a number of milliseconds");
  return reply(restarting([&] { return session.evaluate(*script, *timeout); }));
}

sdk::Response pdfRoute(BrowserSession& session, const sdk::Request& request) {
  auto format = request.json.string("format", "A4");
  if (!format) return bad(format.status().message());
  auto paper = paperSize(*format);
  if (!paper) return bad("Unknown paper format '" + *format + "'");
  auto landscape = request.json.boolean("landscape", false);
  if (!landscape) return bad(landscape.status().message());
  return reply(restarting([&] { return session.pdf(*paper, *landscape); }));
}

sdk::Response consoleRoute(BrowserSession& session, const sdk::Request&) {
  return reply(restarting([&] { return session.console(); }));
}

}  // namespace abx::plugins::browser
