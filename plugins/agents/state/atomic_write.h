// The agents plugin's one way to replace a state file: a crash or a full
// disk leaves the old file or the new one, never a torn mix, and neither is
// ever readable by another user (sessions.json, agents_state.json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::plugins::agents {

/**
 * Writes @p body to @p path: creates @p dir (mode 0700), writes
 * `<path>.tmp` (mode 0600, never through a symlink), fsyncs it, renames it
 * onto @p path and fsyncs @p dir.
 */
sdk::Status writeFileAtomically(const std::string& dir, const std::string& path,
                                std::string_view body);

/**
 * Moves a state file the server cannot use aside to `<path>.<why>-<unix
 * time>` (why: "corrupt"), so the server can start without it and without
 * losing it; returns the new name, or "" when the rename failed.
 */
std::string moveFileAside(const std::string& path, std::string_view why, std::int64_t now);

}  // namespace abx::plugins::agents
