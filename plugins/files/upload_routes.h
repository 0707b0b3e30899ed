// POST /upload and POST /files/upload-stream: {"path", "content_base64"}
// read as it arrives (RouteSpec::raw_body), decoded 64 KiB at a time into a
// temporary file next to the target, and renamed into place only when the
// whole body was valid and within the size limit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abx/sdk/http.h"
#include "file_access.h"

namespace abx::plugins::files {

/** The route body cap that admits the base64 of @p upload_limit bytes (4/3 x + 1 MiB). */
std::size_t uploadRequestCap(std::uint64_t upload_limit);

/**
 * Both upload routes: 200 {"path", "bytes"}; 400 missing/invalid fields,
 * bad JSON or base64; 403 guard or extension; 409 file_exists
 * (params.overwrite false); 413 file_too_large; 500 write failure.
 */
sdk::Response upload(const FilesContext& ctx, const sdk::Request& request);

}  // namespace abx::plugins::files
