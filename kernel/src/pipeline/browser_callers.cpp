// The pipeline's Host and Origin stage and CORS preflights (see
// http/origin_policy.h for why): the Pipeline members that talk to browsers.
#include <algorithm>
#include <cctype>

#include "pipeline/pipeline.h"

namespace abx::kernel {
namespace {

// Response headers a cross-origin page may read besides the CORS-safelisted ones.
constexpr const char* kExposedHeaders = "Retry-After, X-Agent-Sandbox-Ignored-Params";
constexpr const char* kPreflightMaxAge = "600";

std::optional<std::string_view> single(const Exchange& ex, std::string_view name) {
  auto values = ex.headerValues(name);
  if (values.empty()) return std::nullopt;
  return values.front();
}

/** The requested header list, if it is a plain comma list of header names. */
std::optional<std::string> headerList(std::string_view requested) {
  bool ok = std::all_of(requested.begin(), requested.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ',' ||
           c == ' ';
  });
  if (!ok) return std::nullopt;
  std::string out(requested);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/** What every answer to an allowed cross-origin caller carries. */
void corsHeaders(Exchange& ex, std::string_view origin) {
  ex.addResponseHeader("Access-Control-Allow-Origin", std::string(origin));
  ex.addResponseHeader("Vary", "Origin");
  ex.addResponseHeader("Access-Control-Expose-Headers", kExposedHeaders);
}

}  // namespace

std::optional<ApiError> Pipeline::admitBrowserCaller(Exchange& ex) const {
  auto local = [&ex] { return ex.localAddress(); };
  if (ex.headerValues("Host").size() > 1)
    return origins_->checkHost(std::string_view("(several Host headers)"), local);
  if (auto refusal = origins_->checkHost(single(ex, "Host"), local)) return refusal;
  auto origin = single(ex, "Origin");
  if (!origin) return std::nullopt;
  switch (origins_->classify(*origin, local)) {
    case OriginPolicy::OriginKind::none:
    case OriginPolicy::OriginKind::same:
      return std::nullopt;
    case OriginPolicy::OriginKind::cross:
      corsHeaders(ex, *origin);
      return std::nullopt;
    case OriginPolicy::OriginKind::foreign:
      break;
  }
  return OriginPolicy::originError(*origin);
}

int Pipeline::preflight(Exchange& ex, const std::string& path) const {
  auto origin = single(ex, "Origin");
  auto method = single(ex, "Access-Control-Request-Method");
  ApiError e;
  if (!origins_ || !origin || !method) {
    e.status = 501;
    e.message = "Unsupported method ('OPTIONS')";
    e.type = "NotImplementedError";
    ex.send(renderError(path, e));
    return e.status;
  }
  auto local = [&ex] { return ex.localAddress(); };
  if (auto refusal = origins_->checkHost(single(ex, "Host"), local)) {
    ex.send(renderError(path, *refusal));
    return refusal->status;
  }
  if (origins_->classify(*origin, local) == OriginPolicy::OriginKind::foreign) {
    const ApiError refusal = OriginPolicy::originError(*origin);
    ex.send(renderError(path, refusal));
    return refusal.status;
  }
  if (!current()->routes->match(*method, path)) {
    e.status = 404;
    e.message = "Not found: " + path;
    ex.send(renderError(path, e));
    return e.status;
  }
  // A same-origin page never preflights; answering one like an allowed
  // origin keeps the rule simple.
  corsHeaders(ex, *origin);
  sdk::Response r;
  r.status = 204;
  r.content_type.clear();
  r.headers = {{"Access-Control-Allow-Methods", std::string(*method)},
               {"Access-Control-Max-Age", kPreflightMaxAge}};
  if (auto requested = single(ex, "Access-Control-Request-Headers"))
    if (auto list = headerList(*requested))
      r.headers.emplace_back("Access-Control-Allow-Headers", *list);
  ex.send(r);
  return r.status;
}

}  // namespace abx::kernel
