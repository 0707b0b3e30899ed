// GET /download and GET /files/download-stream: a file's bytes as base64 in
// a JSON body, streamed from the file (see encoded_response.h).
#pragma once

#include "abx/sdk/http.h"
#include "file_access.h"

namespace abx::plugins::files {

/** GET /download?path=: {"path", "content_base64"}. */
sdk::Response download(const FilesContext& ctx, const sdk::Request& request);
/** GET /files/download-stream?path=: {"path", "content_base64", "bytes"}. */
sdk::Response downloadStream(const FilesContext& ctx, const sdk::Request& request);

}  // namespace abx::plugins::files
