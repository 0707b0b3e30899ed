// POST /files/archive {"paths": [...], "format": "tar.gz"|"zip"}: the
// archive is built into an unlinked temporary file (its size must be known
// before the first byte of the answer), then sent as base64 in
// {"content_base64", "format", "bytes", "files"}.
#pragma once

#include "abx/sdk/http.h"
#include "file_access.h"

namespace abx::plugins::files {

sdk::Response archivePaths(const FilesContext& ctx, const sdk::Request& request);

}  // namespace abx::plugins::files
