#include "pipeline/pipeline.h"

#include <chrono>
#include <exception>
#include <utility>

#include "abx/sdk/text_codecs.h"
#include "support/request_id.h"

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
  auto pairs = sdk::decodeQuery(raw);
  if (!pairs) {
    ApiError e;
    e.message = "Malformed percent-encoding in the query string";
    e.code = "invalid_query";
    return e;
  }
  for (auto& [name, value] : *pairs) {
    if (name.size() > 2 && name.ends_with("[]")) {
      arrays[name.substr(0, name.size() - 2)].push_back(std::move(value));
      continue;
    }
    if (query.count(name)) {
      ApiError e;
      e.message = "Duplicate query parameter: " + name;
      e.code = "duplicate_parameter";
      e.param = name;
      e.fields = {{"param", name}};
      return e;
    }
    query.emplace(std::move(name), std::move(value));
  }
  return std::nullopt;
}

namespace {

ApiError badRequest(std::string message, std::string code, bool close = false) {
  ApiError e;
  e.message = std::move(message);
  e.code = std::move(code);
  e.close_connection = close;
  return e;
}

// Reads the body as the handler asks, never past Content-Length.
class ExchangeBodyReader final : public sdk::BodyReader {
 public:
  ExchangeBodyReader(Exchange& ex, std::uint64_t length) : ex_(ex), total_(length), left_(length) {}
  std::size_t read(char* buffer, std::size_t n) override {
    if (left_ == 0) return 0;
    auto got = ex_.readSome(buffer, static_cast<std::size_t>(std::min<std::uint64_t>(n, left_)));
    left_ -= got;
    return got;
  }
  std::uint64_t length() const override { return total_; }

 private:
  Exchange& ex_;
  std::uint64_t total_;
  std::uint64_t left_;
};

}  // namespace

/**
 * One request on its way through the stages: what it matched, who it is,
 * the admission it holds, and the one exit that answers and audits.
 */
struct Pipeline::Call {
  Call(Exchange& e, const KernelMetrics* m)
      : ex(e), metrics(m), method(e.method()), path(normalisePath(e.target())) {
    const auto incoming = e.headerValues("x-request-id");
    request_id = requestIdFor(incoming.empty() ? std::string_view() : incoming.front());
    e.addResponseHeader("X-Request-Id", request_id);
  }

  Exchange& ex;
  const KernelMetrics* metrics;
  std::string request_id;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::string_view method;
  std::string path;
  std::shared_ptr<const Dispatch> dispatch;  // held until the call is answered
  const Route* route = nullptr;
  sdk::ParamMap path_params;
  const sdk::EndpointPolicy* policy = nullptr;
  const sdk::Identity* identity = nullptr;
  sdk::Identity authenticated;
  Verdict verdict;
  int status = 0;                 // what was sent, for the metrics
  bool presented_token = false;   // for an authentication failure's reason
  bool preauthenticated = false;  // handleAs: `authenticated` is the caller

  double elapsedMs() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
        .count();
  }

  void audit(int status, bool allowed, std::string_view rule, std::string_view code) const {
    AuditLog& log = *dispatch->audit;
    if (!log.wants(allowed, policy->audit)) return;
    AuditEntry entry;
    entry.request_id = request_id;
    entry.identity = identity ? std::string_view(identity->id) : "unauthenticated";
    entry.endpoint = route->spec.endpoint;
    entry.method = method;
    entry.path = path;
    entry.allowed = allowed;
    entry.rule = rule;
    entry.code = code;
    entry.status = status;
    entry.duration_ms = elapsedMs();
    log.record(entry);
  }

  // Every exit after routing goes through answer() or reject(), so each
  // decision is audited once — before it is sent, so a caller holding the
  // answer finds its record in GET /audit/recent.
  void answer(const sdk::Response& response) {
    status = response.status;
    audit(response.status, true, policy->rule, {});
    ex.send(response);
  }
  void reject(const ApiError& e, std::string_view rule) {
    status = e.status;
    audit(e.status, false, rule, e.code);
    ex.send(renderError(path, e));
    if (metrics) metrics->refusedBy(rule, e.code, presented_token);
  }
  // An answer before routing: no audit record.
  void refuse(const ApiError& e) {
    status = e.status;
    ex.send(renderError(path, e));
  }
};

void Pipeline::publish(std::shared_ptr<const Dispatch> dispatch) {
  std::shared_ptr<const Dispatch> replaced;
  {
    const std::lock_guard lock(dispatch_mutex_);
    replaced = std::exchange(dispatch_, std::move(dispatch));
  }
  // Freed here, outside the lock, unless a call still holds it.
}

std::shared_ptr<const Dispatch> Pipeline::current() const {
  const std::lock_guard lock(dispatch_mutex_);
  return dispatch_;
}

void Pipeline::handle(Exchange& ex) const {
  Call call(ex, metrics_);
  run(call);
}

void Pipeline::handleAs(Exchange& ex, const sdk::Identity& caller) const {
  Call call(ex, metrics_);
  call.authenticated = caller;
  call.preauthenticated = true;
  run(call);
}

void Pipeline::run(Call& call) const {
  const RequestIdScope logged_as(call.request_id);
  if (!metrics_ && !access_log_) return serve(call);
  if (metrics_) metrics_->in_flight.inc();
  // Counted and logged however serve() leaves (an exception included).
  struct Done {
    const Pipeline& pipeline;
    const Call& call;
    ~Done() { pipeline.finished(call); }
  } done{*this, call};
  serve(call);
}

void Pipeline::finished(const Call& call) const {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - call.started).count();
  const std::string_view endpoint = call.route ? std::string_view(call.route->spec.endpoint) : "";
  if (metrics_) {
    metrics_->in_flight.dec();
    metrics_->requestDone(endpoint.empty() ? "none" : endpoint, call.method, call.status, seconds);
  }
  if (!access_log_) return;
  const std::string remote = call.ex.peerAddress();
  AccessEntry entry;
  entry.remote = remote;
  entry.identity = call.identity ? std::string_view(call.identity->id) : "";
  entry.method = call.method;
  entry.path = call.path;
  entry.status = call.status;
  entry.duration_ms = seconds * 1000;
  entry.request_id = call.request_id;
  entry.endpoint = endpoint;
  access_log_->record(entry);
}

void Pipeline::serve(Call& call) const {
  Exchange& ex = call.ex;
  if (call.method == "OPTIONS") {
    call.status = preflight(ex, call.path);
    return;
  }
  if (!knownMethod(call.method)) {
    ApiError e;
    e.status = 501;
    e.message = "Unsupported method ('" + std::string(call.method) + "')";
    e.type = "NotImplementedError";
    return call.refuse(e);
  }
  if (!route(call)) return call.refuse(notFound(call.path));

  if (origins_ && !call.preauthenticated)
    if (auto refusal = admitBrowserCaller(ex))
      return call.reject(*refusal, refusal->code == "host_not_allowed" ? "host" : "origin");
  if (auto refusal = authenticate(call)) return call.reject(*refusal, "auth");
  // The verdict's lease holds a concurrency slot until the handler returns.
  call.verdict = call.dispatch->admission->admit(*call.route, *call.identity);
  if (call.verdict.error)
    return call.reject(*call.verdict.error, denialRule(*call.policy, *call.verdict.error));

  sdk::Request request;
  std::optional<ExchangeBodyReader> body_reader;
  std::string rule = "params";
  if (auto refusal = readRequest(call, request, rule)) return call.reject(*refusal, rule);
  if (call.route->spec.raw_body) {
    auto length = ex.contentLength();
    body_reader.emplace(ex, length && *length > 0 ? static_cast<std::uint64_t>(*length) : 0);
    request.body_reader = &*body_reader;
  }
  if (call.route->spec.streaming) return invokeStream(call, request);
  call.answer(invoke(call, [&] { return call.route->spec.handler(request); }));
}

bool Pipeline::route(Call& call) const {
  call.dispatch = current();
  auto match = call.dispatch->routes->match(call.method, call.path);
  if (!match) return false;
  call.route = match->route;
  call.path_params = std::move(match->params);
  call.policy = &call.dispatch->admission->policy(*call.route);
  return true;
}

std::optional<ApiError> Pipeline::authenticate(Call& call) const {
  const Authenticator& auth = *call.dispatch->auth;
  if (call.preauthenticated) {
    call.identity = &call.authenticated;
    return std::nullopt;
  }
  call.identity = &auth.openIdentity();
  if (!call.route->spec.auth_required || !auth.enabled()) return std::nullopt;
  auto tokens = call.ex.headerValues("X-Access-Token");
  auto bearer = call.ex.headerValues("Authorization");
  call.presented_token = !tokens.empty() || !bearer.empty();
  auto outcome =
      auth.authenticate(tokens, bearer.empty() ? std::nullopt : std::optional(bearer.front()));
  if (auto* error = std::get_if<ApiError>(&outcome)) {
    call.identity = nullptr;
    return *error;
  }
  call.authenticated = std::move(std::get<sdk::Identity>(outcome));
  call.identity = &call.authenticated;
  return std::nullopt;
}

// Query, Transfer-Encoding, the bounded body and its JSON: the refusal of
// the first that fails (with its audit rule in @p rule), else the request.
std::optional<ApiError> Pipeline::readRequest(Call& call, sdk::Request& request,
                                              std::string& rule) const {
  Exchange& ex = call.ex;
  if (auto q = ex.target().find('?'); q != std::string_view::npos) {
    auto raw = ex.target().substr(q + 1);
    if (auto bad = parseQuery(raw.substr(0, raw.find('#')), request.query, request.query_arrays))
      return bad;
  }
  if (!ex.headerValues("Transfer-Encoding").empty())
    return badRequest("Transfer-Encoding is not supported on requests; send Content-Length",
                      "transfer_encoding_unsupported", true);
  if (hasBody(call.method))
    if (auto refusal = readBody(call, request, rule)) return refusal;

  request.method = std::string(call.method);
  request.path = call.path;
  request.endpoint = call.route->spec.endpoint;
  request.path_params = std::move(call.path_params);
  request.headers = ex.headers();
  request.identity = *call.identity;
  request.policy = call.policy;
  return std::nullopt;
}

std::optional<ApiError> Pipeline::readBody(Call& call, sdk::Request& request,
                                           std::string& rule) const {
  const auto& spec = call.route->spec;
  auto length = call.ex.contentLength();
  const auto& max = call.policy->limits.max_request_bytes;
  std::size_t limit = max                      ? static_cast<std::size_t>(*max)
                      : spec.max_request_bytes ? spec.max_request_bytes
                                               : default_body_limit_;
  if (length && *length < 0)
    return badRequest("Malformed Content-Length", "invalid_content_length", true);
  if (length && static_cast<std::uint64_t>(*length) > limit) {
    ApiError e;
    e.status = 413;
    e.message = "Request body too large: " + std::to_string(*length) + " bytes; the limit is " +
                std::to_string(limit);
    e.code = "request_too_large";
    e.fields = {{"endpoint", spec.endpoint}, {"limit", "max_request_bytes"}};
    // No forced close: the exchange drains a moderate body so the client
    // reads this answer, and closes the connection only for a huge one.
    rule = "limits:max_request_bytes";
    return e;
  }
  // A raw-body handler reads the body itself, in bounded memory.
  if (spec.raw_body || !length || *length == 0) return std::nullopt;
  if (!call.ex.readBody(request.body, static_cast<std::size_t>(*length)))
    return badRequest("Request body shorter than Content-Length", "incomplete_body", true);
  auto parsed = sdk::Json::parse(request.body);
  if (!parsed) return badRequest(parsed.status().message(), "invalid_json");
  if (!parsed->isObject())
    return badRequest("Invalid JSON: the request body must be a JSON object", "invalid_json");
  request.json = std::move(parsed).value();
  return std::nullopt;
}

sdk::Response Pipeline::internalError(const Call& call, std::string_view what) {
  ApiError e;
  e.status = 500;
  e.message = "Internal error in " + call.route->spec.endpoint + ": " + std::string(what);
  e.type = "InternalError";
  return renderError(call.path, e);
}

template <class Handler>
auto Pipeline::invoke(const Call& call, Handler&& handler) -> decltype(handler()) {
  try {
    return handler();
  } catch (const std::exception& err) {
    return internalError(call, err.what());
  } catch (...) {
    return internalError(call, "unknown exception");
  }
}

// A stream answers itself; its audit record is written when the handler
// returns (or the stream leaves for the event loop, taking the slot along).
void Pipeline::invokeStream(Call& call, sdk::Request& request) const {
  int status = 200;
  auto slot = std::make_shared<AdmissionLease>(std::move(call.verdict.lease));
  call.ex.stream(
      [&](sdk::SseStream& sse) -> std::optional<sdk::Response> {
        auto reply = invoke(call, [&]() -> std::optional<sdk::Response> {
          return call.route->spec.stream_handler(request, sse);
        });
        if (reply) status = reply->status;
        return reply;
      },
      slot);
  call.status = status;
  call.audit(status, true, call.policy->rule, {});
}

}  // namespace abx::kernel
