// OnDemandOpenApiCatalog: the plugins' OpenAPI fragments parsed when a
// document is first asked for (GET /openapi.json, the MCP tools, the
// openapi command) and kept from then on. Parsed, the fragments take about
// 1 MiB of heap (the agents' wire alone is a 190 KB file), which a server
// that is never asked for its document should not hold. Start-up still
// reads them once, to warn about what is wrong in them, then lets go.
#pragma once

#include <functional>
#include <memory>
#include <mutex>

#include "openapi/openapi_catalog.h"

namespace abx::kernel {

/** THREAD: safe. */
class OnDemandOpenApiCatalog {
 public:
  using Build = std::function<std::unique_ptr<OpenApiCatalog>()>;
  explicit OnDemandOpenApiCatalog(Build build) : build_(std::move(build)) {}

  /** The catalog, built by the first call. */
  const OpenApiCatalog& get() const {
    std::call_once(once_, [this] { catalog_ = build_(); });
    return *catalog_;
  }

 private:
  Build build_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<OpenApiCatalog> catalog_;
};

}  // namespace abx::kernel
