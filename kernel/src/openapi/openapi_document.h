// The OpenAPI 3.1 document of a set of routes: what the route table knows
// (method, path, id, group, summary, scopes, auth) merged with the catalog's
// fragments, the kernel's error envelopes on every operation, and only the
// components the operations reach. GET /openapi.json and the `openapi`
// command both build it from here.
#pragma once

#include <string>
#include <vector>

#include "openapi/openapi_catalog.h"
#include "routing/route_table.h"

namespace abx::kernel {

struct OpenApiInputs {
  const OpenApiCatalog* catalog = nullptr;
  /** The operations to list, in route-table order. */
  std::vector<const Route*> routes;
  /** For the tags' descriptions; may be null. */
  const std::vector<GroupRecord>* groups = nullptr;
  std::string version;
  /** The one entry of `servers`: "http://host:port", or "/" (relative). */
  std::string server_url = "/";
};

/** The document as compact JSON text. */
std::string openApiDocument(const OpenApiInputs& in);

/** The server URL a request's Host header gives ("/" without one). */
std::string serverUrlFor(std::string_view host_header);

/** The core group's fragment (its operations and the kernel's components). */
std::string_view coreOpenApiFragment();

}  // namespace abx::kernel
