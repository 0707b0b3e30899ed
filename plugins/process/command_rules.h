// The pieces of the policy's params for commands: how a program word is
// found and matched by allow_commands / deny_commands / shells patterns
// (command_chain.h applies them to every program a command starts), and
// env_deny (variables kept from children). See docs/process.md, "Policy".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/policy.h"

namespace abx::plugins::process {

/** Program names treated as shells for params.shells (compared by basename). */
inline constexpr std::string_view kShellNames[] = {"sh",    "bash", "dash",  "zsh",     "ksh",
                                                   "ksh93", "mksh", "ash",   "csh",     "tcsh",
                                                   "fish",  "yash", "rbash", "busybox", "pwsh"};

/** The text after the last '/' of @p path (all of it when there is none). */
std::string_view baseName(std::string_view path);

/** "/a/./b/../c" -> "/a/c"; relative paths stay relative. */
std::string lexicallyNormal(std::string_view path);

/**
 * Where argv[0] will be found, as the spawn looks it up: with a '/', itself
 * (made absolute against @p cwd, normalised); without, the first executable
 * regular file in the PATH of @p env ("NAME=value" entries). nullopt when
 * there is none.
 */
std::optional<std::string> resolveProgram(std::string_view argv0,
                                          const std::vector<std::string>& env,
                                          std::string_view cwd);

/** True when @p argv0's basename is one of kShellNames. */
bool isShell(std::string_view argv0);

/**
 * True when one fnmatch(3) pattern of @p patterns names the program: a
 * pattern with a '/' is matched (FNM_PATHNAME) against @p resolved and
 * against @p argv0 when it has a '/'; a pattern without one is matched
 * against the basename of @p argv0.
 */
bool programMatches(const std::vector<std::string>& patterns, std::string_view argv0,
                    const std::optional<std::string>& resolved);

/** @p env without the entries whose name matches a glob of @p deny. */
std::vector<std::string> withoutDenied(std::vector<std::string> env,
                                       const std::optional<std::vector<std::string>>& deny);

}  // namespace abx::plugins::process
