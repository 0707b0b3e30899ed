// The inspector page's files (plugins/inspector/assets/), compiled into the
// module by embed_assets.cmake: the page is installed with the .so.
#pragma once

#include <span>
#include <string_view>

namespace abx::plugins::inspector {

struct EmbeddedAsset {
  std::string_view name; /**< the file name: "index.html", "inspector.js" */
  std::string_view body;
};

/** Every asset, in the order of the assets folder's listing. */
std::span<const EmbeddedAsset> embeddedAssets();

}  // namespace abx::plugins::inspector
