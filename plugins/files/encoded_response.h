// A JSON response whose one big member is the base64 of a file: written
// while it is sent, 48 KiB of the file at a time, with an exact
// Content-Length computed up front from the file's size. Downloads and
// archives answer with it, so no file is ever held in memory whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"
#include "atomic_file.h"

namespace abx::plugins::files {

/**
 * @p body with the base64 of the first @p size bytes of @p fd (read with
 * pread from offset 0) inserted at @p hole: @p body is the whole JSON object
 * written with an empty string where the base64 goes, and @p hole the offset
 * between that string's quotes (base64Hole). A file that turns out shorter
 * than @p size aborts the connection: the client sees a truncated body,
 * never a wrong whole one.
 */
sdk::Response base64JsonResponse(Fd fd, std::uint64_t size, std::string body, std::size_t hole);

/** Writes "" as the value of the key @p w has just written; returns the
 *  offset between its quotes, where base64JsonResponse puts the base64. */
std::size_t base64Hole(sdk::JsonWriter& w);

}  // namespace abx::plugins::files
