#include "pipeline/pipeline.h"

#include <chrono>
#include <exception>

namespace abx::kernel {
namespace {

bool hasBody(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

bool knownMethod(std::string_view method) { return method == "GET" || hasBody(method); }

ApiError notFound(std::string_view path) {
  ApiError e;
  e.status = 404;
  e.message = "Not found: " + std::string(path);
  e.type = "ValueError";
  return e;
}

// Query names and values: '+' is a space, then %XX escapes.
bool decodeComponent(std::string_view in, std::string& out) {
  std::string plus(in);
  for (auto& c : plus)
    if (c == '+') c = ' ';
  return percentDecode(plus, out);
}

}  // namespace

std::string Pipeline::normalisePath(std::string_view target) {
  auto path = target.substr(0, target.find_first_of("?#"));
  std::string out;
  out.reserve(path.size() + 1);
  for (char c : path) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out += c;
  }
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  if (out.empty() || out.front() != '/') out.insert(out.begin(), '/');
  return out;
}

std::optional<ApiError> Pipeline::parseQuery(std::string_view raw, sdk::ParamMap& query,
                                             decltype(sdk::Request::query_arrays)& arrays) {
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('&', start);
    if (end == std::string_view::npos) end = raw.size();
    auto pair = raw.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    std::string name, value;
    bool ok = decodeComponent(pair.substr(0, eq), name);
    ok = ok && (eq == std::string_view::npos || decodeComponent(pair.substr(eq + 1), value));
    if (!ok) {
      ApiError e;
      e.message = "Malformed percent-encoding in the query string";
      e.code = "invalid_query";
      return e;
    }
    if (name.size() > 2 && name.ends_with("[]")) {
      arrays[name.substr(0, name.size() - 2)].push_back(std::move(value));
      continue;
    }
    if (query.count(name)) {
      ApiError e;
      e.message = "Duplicate query parameter: " + name;
      e.code = "duplicate_parameter";
      e.fields = {{"param", name}};
      return e;
    }
    query.emplace(std::move(name), std::move(value));
  }
  return std::nullopt;
}

void Pipeline::handle(Exchange& ex) const {
  auto started = std::chrono::steady_clock::now();
  auto method = ex.method();
  std::string path = normalisePath(ex.target());

  if (method == "OPTIONS") {
    preflight(ex, path);
    return;
  }
  if (!knownMethod(method)) {
    ApiError e;
    e.status = 501;
    e.message = "Unsupported method ('" + std::string(method) + "')";
    e.type = "NotImplementedError";
    ex.send(renderError(path, e));
    return;
  }

  const Dispatch* dispatch = current();
  const Authenticator& auth = *dispatch->auth;
  AuditLog& audit = *dispatch->audit;
  auto match = dispatch->routes->match(method, path);
  if (!match) {
    ex.send(renderError(path, notFound(path)));
    return;
  }
  const Route& route = *match->route;
  const sdk::EndpointPolicy& policy = dispatch->admission->policy(route);

  // Every later exit goes through here, so each decision is audited once.
  auto finish = [&](const sdk::Response& response, const sdk::Identity* who, bool allowed,
                    std::string_view rule, std::string_view code) {
    ex.send(response);
    if (audit.wants(allowed, policy.audit)) {
      AuditEntry entry;
      entry.identity = who ? std::string_view(who->id) : std::string_view("unauthenticated");
      entry.endpoint = route.spec.endpoint;
      entry.method = method;
      entry.path = path;
      entry.allowed = allowed;
      entry.rule = rule;
      entry.code = code;
      entry.status = response.status;
      entry.duration_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      audit.record(entry);
    }
  };
  auto reject = [&](const ApiError& e, const sdk::Identity* who, std::string_view rule) {
    finish(renderError(path, e), who, false, rule, e.code);
  };

  if (origins_) {
    if (auto refusal = admitBrowserCaller(ex)) {
      reject(*refusal, nullptr, refusal->code == "host_not_allowed" ? "host" : "origin");
      return;
    }
  }

  const sdk::Identity* identity = &auth.openIdentity();
  sdk::Identity authenticated;
  if (route.spec.auth_required && auth.enabled()) {
    auto outcome = auth.authenticate(ex.headerValues("X-Access-Token"),
                                     [&]() -> std::optional<std::string_view> {
                                       auto v = ex.headerValues("Authorization");
                                       if (v.empty()) return std::nullopt;
                                       return v.front();
                                     }());
    if (auto* error = std::get_if<ApiError>(&outcome)) {
      reject(*error, nullptr, "auth");
      return;
    }
    authenticated = std::move(std::get<sdk::Identity>(outcome));
    identity = &authenticated;
  }

  // The verdict's lease holds a concurrency slot until the handler returns.
  Verdict verdict = dispatch->admission->admit(route, *identity);
  if (verdict.error) {
    reject(*verdict.error, identity, denialRule(policy, *verdict.error));
    return;
  }

  sdk::Request request;
  if (auto q = ex.target().find('?'); q != std::string_view::npos) {
    auto raw = ex.target().substr(q + 1);
    raw = raw.substr(0, raw.find('#'));
    if (auto bad = parseQuery(raw, request.query, request.query_arrays)) {
      reject(*bad, identity, "params");
      return;
    }
  }

  if (!ex.headerValues("Transfer-Encoding").empty()) {
    ApiError e;
    e.message = "Transfer-Encoding is not supported on requests; send Content-Length";
    e.code = "transfer_encoding_unsupported";
    e.close_connection = true;
    reject(e, identity, "params");
    return;
  }

  if (hasBody(method)) {
    auto length = ex.contentLength();
    std::size_t limit = policy.limits.max_request_bytes
                            ? static_cast<std::size_t>(*policy.limits.max_request_bytes)
                        : route.spec.max_request_bytes ? route.spec.max_request_bytes
                                                       : default_body_limit_;
    if (length && *length < 0) {
      ApiError e;
      e.message = "Malformed Content-Length";
      e.code = "invalid_content_length";
      e.close_connection = true;
      reject(e, identity, "params");
      return;
    }
    if (length && static_cast<std::uint64_t>(*length) > limit) {
      ApiError e;
      e.status = 413;
      e.message = "Request body too large: " + std::to_string(*length) + " bytes; the limit is " +
                  std::to_string(limit);
      e.code = "request_too_large";
      e.fields = {{"endpoint", route.spec.endpoint}, {"limit", "max_request_bytes"}};
      // No forced close: the exchange drains a moderate body so the client
      // reads this answer, and closes the connection only for a huge one.
      reject(e, identity, "limits:max_request_bytes");
      return;
    }
    if (route.spec.raw_body) {
      // The handler reads the body itself, in bounded memory.
    } else if (length && *length > 0) {
      if (!ex.readBody(request.body, static_cast<std::size_t>(*length))) {
        ApiError e;
        e.message = "Request body shorter than Content-Length";
        e.code = "incomplete_body";
        e.close_connection = true;
        reject(e, identity, "params");
        return;
      }
      auto parsed = sdk::Json::parse(request.body);
      if (!parsed) {
        ApiError e;
        e.message = parsed.status().message();
        e.code = "invalid_json";
        reject(e, identity, "params");
        return;
      }
      if (!parsed->isObject()) {
        ApiError e;
        e.message = "Invalid JSON: the request body must be a JSON object";
        e.code = "invalid_json";
        reject(e, identity, "params");
        return;
      }
      request.json = std::move(parsed).value();
    }
  }

  // Reads the body as the handler asks, never past Content-Length.
  struct ExchangeBodyReader final : sdk::BodyReader {
    Exchange& ex;
    std::uint64_t total;
    std::uint64_t left;
    ExchangeBodyReader(Exchange& e, std::uint64_t n) : ex(e), total(n), left(n) {}
    std::size_t read(char* buffer, std::size_t n) override {
      if (left == 0) return 0;
      auto got = ex.readSome(buffer, static_cast<std::size_t>(std::min<std::uint64_t>(n, left)));
      left -= got;
      return got;
    }
    std::uint64_t length() const override { return total; }
  };
  std::optional<ExchangeBodyReader> body_reader;
  if (route.spec.raw_body) {
    auto length = ex.contentLength();
    body_reader.emplace(ex, length && *length > 0 ? static_cast<std::uint64_t>(*length) : 0);
    request.body_reader = &*body_reader;
  }

  request.method = std::string(method);
  request.path = path;
  request.endpoint = route.spec.endpoint;
  request.path_params = std::move(match->params);
  request.headers = ex.headers();
  request.identity = *identity;
  request.policy = &policy;

  auto internal = [&](std::string_view what) {
    ApiError e;
    e.status = 500;
    e.message = "Internal error in " + route.spec.endpoint + ": " + std::string(what);
    e.type = "InternalError";
    return renderError(path, e);
  };
  const std::string& rule = policy.rule;
  if (route.spec.streaming) {
    int status = 200;
    // A stream that leaves for the event loop takes the concurrency slot along.
    auto slot = std::make_shared<AdmissionLease>(std::move(verdict.lease));
    ex.stream(
        [&](sdk::SseStream& sse) -> std::optional<sdk::Response> {
          try {
            auto reply = route.spec.stream_handler(request, sse);
            if (reply) status = reply->status;
            return reply;
          } catch (const std::exception& err) {
            status = 500;
            return internal(err.what());
          } catch (...) {
            status = 500;
            return internal("unknown exception");
          }
        },
        slot);
    if (audit.wants(true, policy.audit)) {
      AuditEntry entry{identity->id, route.spec.endpoint, method, path, true, rule, {}, status, 0};
      entry.duration_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
      audit.record(entry);
    }
    return;
  }

  sdk::Response response;
  try {
    response = route.spec.handler(request);
  } catch (const std::exception& err) {
    response = internal(err.what());
  } catch (...) {
    response = internal("unknown exception");
  }
  finish(response, identity, true, rule, {});
}

}  // namespace abx::kernel
