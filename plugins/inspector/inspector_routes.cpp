#include "inspector_routes.h"

namespace abx::plugins::inspector {
namespace {

sdk::Response answer(const EmbeddedAsset& asset) {
  sdk::Response r;
  r.content_type = contentTypeOf(asset.name);
  r.body = std::string(asset.body);
  r.headers = securityHeaders();
  return r;
}

// The kernel's own 404 for an unknown path, with the group's headers.
sdk::Response notFound(const sdk::Request& request) {
  auto r = sdk::Response::error(404, "Not found: " + request.path, "ValueError");
  r.headers = securityHeaders();
  return r;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> securityHeaders() {
  return {{"Content-Security-Policy", std::string(kContentSecurityPolicy)},
          {"X-Content-Type-Options", "nosniff"},
          {"Referrer-Policy", "no-referrer"},
          {"Cache-Control", "no-store"}};
}

std::string contentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  return "application/octet-stream";
}

std::optional<EmbeddedAsset> findAsset(std::span<const EmbeddedAsset> assets,
                                       std::string_view name) {
  // An exact match against the embedded names: no path is ever built from
  // the request, so "..", "%2F" and the like simply match nothing.
  for (const auto& asset : assets)
    if (asset.name == name) return asset;
  return std::nullopt;
}

sdk::Response servePage(std::span<const EmbeddedAsset> assets, const sdk::Request& request) {
  auto page = findAsset(assets, kPageAsset);
  return page ? answer(*page) : notFound(request);
}

sdk::Response serveAsset(std::span<const EmbeddedAsset> assets, const sdk::Request& request) {
  auto asset = findAsset(assets, request.param("asset").value_or(""));
  return asset ? answer(*asset) : notFound(request);
}

}  // namespace abx::plugins::inspector
