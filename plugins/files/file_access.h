// The files plugin's side of the PathGuard: one context every route shares,
// guard verdicts and open failures turned into the error bodies of spec
// §4.3/§8.1, directories opened through the guard (O_NOFOLLOW walk), and
// small path and time helpers. Nothing here opens a caller's path without
// the guard.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/http.h"
#include "abx/sdk/path_guard.h"
#include "atomic_file.h"

namespace abx::plugins::files {

/** What every route handler of the plugin shares. LIFETIME: the plugin's. */
struct FilesContext {
  const sdk::PathGuard* guard = nullptr;
  /** ABX_MAX_UPLOAD_SIZE (default 100 MiB): the uploads' built-in cap. */
  std::uint64_t upload_limit = 100u << 20;
  /** Where an upload whose content comes before its path is staged. */
  std::string staging_dir;
};

/** The body of a guard denial: {"error","type","code"}; @p prefix goes before the message. */
sdk::Response denied(const sdk::PathCheck& verdict, std::string_view prefix = {});

/**
 * The response for a failed operation on @p path: PermissionError (a guard
 * code from PathGuard::open) 403, FileNotFoundError 404, FileExistsError
 * 409 (code file_exists), ValueError 400, anything else 500.
 */
sdk::Response failure(const sdk::Status& status, std::string_view path,
                      std::string_view prefix = {});

/** 400 {"error", "type": "ValueError"}. */
sdk::Response badRequest(std::string_view message);

/** The last component of an absolute normalised path ("" for "/"). */
std::string baseName(std::string_view path);
/** Everything before the last component ("/" for "/a"). */
std::string parentPath(std::string_view path);
/** @p dir + "/" + @p name, without doubling the slash of "/". */
std::string joinPath(std::string_view dir, std::string_view name);

/** ISO 8601 UTC like Python's isoformat(): "2026-09-21T00:00:00[.ffffff]+00:00". */
std::string isoTime(const struct timespec& t);
/** The last three octal digits of @p mode ("644"). */
std::string permissions(mode_t mode);

/**
 * Opens the directory @p resolved (a path the guard already allowed) for
 * @p endpoint through PathGuard::open, walking with O_NOFOLLOW.
 */
sdk::Result<Fd> openDirectory(const sdk::PathGuard& guard, std::string_view endpoint,
                              std::string_view resolved, sdk::PathOp op);

/**
 * Opens a regular file for reading: O_NONBLOCK so a FIFO never blocks the
 * worker, then anything but a regular file is refused (IsADirectoryError or
 * ValueError "Not a regular file"). @p st receives its fstat.
 */
sdk::Result<Fd> openRegularFile(const sdk::PathGuard& guard, std::string_view endpoint,
                                std::string_view resolved, struct stat& st);

/**
 * mkdir -p of @p resolved_dir: every missing directory is checked with the
 * guard for writing and created with mkdirat in its parent opened through
 * the guard. An existing non-directory fails (NotADirectoryError).
 */
sdk::Status makeDirectories(const sdk::PathGuard& guard, std::string_view endpoint,
                            std::string_view resolved_dir);

}  // namespace abx::plugins::files
