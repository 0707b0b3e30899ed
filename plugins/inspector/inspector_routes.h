// The inspector group's two routes: GET /ui (the page) and GET /ui/{asset}
// (its stylesheet and scripts), served from the embedded assets with the
// headers that keep the page to itself (a strict Content-Security-Policy,
// no sniffing, no referrer, no caching). Neither needs a token: the page
// holds no data, and every API call it makes carries the token the user
// pastes into it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"
#include "inspector_assets.h"

namespace abx::plugins::inspector {

/** The page's Content-Security-Policy: its own scripts, styles and API only. */
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The asset GET /ui serves. */
inline constexpr std::string_view kPageAsset = "index.html";

/** The headers every answer of the group carries. */
std::vector<std::pair<std::string, std::string>> securityHeaders();

/** The Content-Type of an asset named @p name (by its extension). */
std::string contentTypeOf(std::string_view name);

/** The asset named exactly @p name in @p assets, or nullopt. */
std::optional<EmbeddedAsset> findAsset(std::span<const EmbeddedAsset> assets,
                                       std::string_view name);

/** GET /ui. */
sdk::Response servePage(std::span<const EmbeddedAsset> assets, const sdk::Request& request);
/** GET /ui/{asset}: 404 for any name that is not an asset. */
sdk::Response serveAsset(std::span<const EmbeddedAsset> assets, const sdk::Request& request);

}  // namespace abx::plugins::inspector
