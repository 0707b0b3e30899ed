// A JSON response whose one big member is the base64 of a file: written
// while it is sent, 48 KiB of the file at a time, with an exact
// Content-Length computed up front from the file's size. Downloads and
// archives answer with it, so no file is ever held in memory whole.
#pragma once

#include <cstdint>
#include <string>

#include "abx/sdk/http.h"
#include "atomic_file.h"

namespace abx::plugins::files {

/**
 * @p prefix (ending in the opening quote of the base64 string), then the
 * base64 of the first @p size bytes of @p fd (read with pread from offset
 * 0), then @p suffix. A file that turns out shorter than @p size aborts the
 * connection: the client sees a truncated body, never a wrong whole one.
 */
sdk::Response base64JsonResponse(Fd fd, std::uint64_t size, std::string prefix, std::string suffix);

}  // namespace abx::plugins::files
