// The policy's limits and params as the file routes apply them: size caps
// (the policy can only tighten the built-in ones), entry caps, the
// overwrite switch and the extension lists, with their error bodies.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "abx/sdk/http.h"
#include "abx/sdk/policy.h"
#include "abx/sdk/settings.h"

namespace abx::plugins::files {

constexpr std::uint64_t kDefaultUploadLimit = 100u << 20;  // 100 MiB
constexpr std::uint64_t kArchiveMaxBytes = 100u << 20;     // _ARCHIVE_MAX_SIZE
constexpr std::uint64_t kArchiveMaxFiles = 10000;          // _ARCHIVE_MAX_FILES
constexpr double kSearchTimeoutSeconds = 10.0;             // _SEARCH_TIMEOUT_SECONDS

/** The max_upload_size setting in bytes when positive, else kDefaultUploadLimit. */
std::uint64_t uploadLimit(const sdk::Settings& settings);

/** The smaller of @p builtin and the policy's limits.max_bytes. */
std::uint64_t byteLimit(const sdk::Request& request, std::uint64_t builtin);
/** The policy's limits.max_bytes alone (downloads have no built-in cap). */
std::optional<std::uint64_t> policyByteLimit(const sdk::Request& request);
/** The smaller of @p builtin and the policy's limits.max_entries. */
std::uint64_t entryLimit(const sdk::Request& request, std::uint64_t builtin);
/** params.overwrite, true unless a policy says false. */
bool overwriteAllowed(const sdk::Request& request);

/**
 * params.allow_extensions / deny_extensions on the file name @p name
 * (case-insensitive suffixes; ".sh" and "sh" alike). nullopt: allowed;
 * else 403 {"code": "extension_not_allowed"}.
 */
std::optional<sdk::Response> checkExtension(const sdk::Request& request, std::string_view name,
                                            std::string_view prefix = {});

/** 413 {"error", "type": "ValueError", "code": "file_too_large"}. */
sdk::Response tooLarge(std::string_view message);
/** 409 {"error": "File exists: <path>", "type": "FileExistsError", "code": "file_exists"}. */
sdk::Response fileExists(std::string_view path, std::string_view prefix = {});

}  // namespace abx::plugins::files
