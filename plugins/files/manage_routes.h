// Changes to the tree other than uploads: POST /files/mkdir, DELETE /files
// and POST /files/move.
#pragma once

#include "abx/sdk/http.h"
#include "file_access.h"

namespace abx::plugins::files {

/** POST /files/mkdir {"path"}: mkdir -p, {"path", "created": true}. */
sdk::Response makeDirectory(const FilesContext& ctx, const sdk::Request& request);

/** DELETE /files?path=: a file, a link or a whole directory; {"path", "deleted": true}. */
sdk::Response deletePath(const FilesContext& ctx, const sdk::Request& request);

/**
 * POST /files/move {"source", "destination"}: like Python's shutil.move (an
 * existing directory as destination receives the source inside it);
 * {"source", "destination"}; errors prefixed "source: " / "destination: ".
 */
sdk::Response movePath(const FilesContext& ctx, const sdk::Request& request);

}  // namespace abx::plugins::files
