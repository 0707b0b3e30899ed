#include "inspector_plugin.h"

#include "abx/sdk/route_table.h"
#include "inspector_assets.h"
#include "inspector_routes.h"

namespace abx::plugins::inspector {
namespace {

constexpr const char* kGroup = "inspector";

// What the handlers read: the embedded files, constant for the process.
struct Assets {
  std::span<const EmbeddedAsset> files = embeddedAssets();
};

sdk::Response page(const Assets& assets, const sdk::Request& r) {
  return servePage(assets.files, r);
}
sdk::Response asset(const Assets& assets, const sdk::Request& r) {
  return serveAsset(assets.files, r);
}

}  // namespace

sdk::Status InspectorPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {kGroup, false, "The inspector page: a read-only view through the public API"});
      !s)
    return s;
  static const Assets kAssets;
  // No token for the page and its files: they hold no data, and every call
  // the page makes carries the token the user pastes into it.
  return sdk::addRoutes(host.routes(), kGroup, &kAssets,
                        {{.method = "GET",
                          .path = "/ui",
                          .endpoint = "inspector_page",
                          .summary = "The inspector page (HTML)",
                          .scopes = {},
                          .handler = &page,
                          .auth_required = false},
                         {.method = "GET",
                          .path = "/ui/{asset}",
                          .endpoint = "inspector_asset",
                          .summary = "A stylesheet or script of the inspector page",
                          .scopes = {},
                          .handler = &asset,
                          .auth_required = false}});
}

std::unique_ptr<sdk::Plugin> makeInspectorPlugin(sdk::HostContext&) {
  return std::make_unique<InspectorPlugin>();
}

}  // namespace abx::plugins::inspector
