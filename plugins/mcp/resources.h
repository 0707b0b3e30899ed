// MCP resources: the files under the caller's allowed paths as file:// URIs,
// read-only. Listing walks the base dir through the files_list route and
// reading goes through the download route, both in-process for the caller,
// so the policy's paths rules decide what is listed and read.
#pragma once

#include <optional>
#include <string>

#include "abx/sdk/host_context.h"

namespace abx::plugins::mcp {

struct ResourceLimits {
  std::size_t page = 100;       /**< resources per resources/list page */
  std::size_t max_total = 1000; /**< resources one listing walks */
  std::size_t max_dirs = 200;   /**< directories one listing opens */
};

/** A resources/list result (JSON text); @p cursor: the offset from nextCursor. */
std::string listResources(sdk::HostContext& host, const sdk::Identity& caller, std::size_t cursor,
                          const ResourceLimits& limits);

struct ReadOutcome {
  std::string result;  // a resources/read result, when the read worked
  std::string error;   // else why (the route's refusal), for a JSON-RPC error
};
ReadOutcome readResource(sdk::HostContext& host, const sdk::Identity& caller,
                         const std::string& uri);

}  // namespace abx::plugins::mcp
