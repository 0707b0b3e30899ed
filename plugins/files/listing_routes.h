// Read-only views of the tree: GET /files/list, GET /files/stat and
// POST /files/search.
#pragma once

#include "abx/sdk/http.h"
#include "file_access.h"

namespace abx::plugins::files {

/**
 * GET /files/list?path=[&hidden=false]: {"entries": [{"name", "type",
 * "size", "modified"}], "truncated"}; 404 when the directory is missing.
 */
sdk::Response listFiles(const FilesContext& ctx, const sdk::Request& request);

/** GET /files/stat?path=: always 200 for an allowed path, "exists": false if missing. */
sdk::Response statFile(const FilesContext& ctx, const sdk::Request& request);

/**
 * POST /files/search {"path", "pattern", "max_results"?}: fnmatch on
 * names (on the relative path when the pattern holds a '/'):
 * {"results": [{"name", "path", "type"}], "timed_out", "truncated"}.
 */
sdk::Response searchFiles(const FilesContext& ctx, const sdk::Request& request);

}  // namespace abx::plugins::files
