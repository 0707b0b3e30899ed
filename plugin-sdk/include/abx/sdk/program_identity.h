// What a program file really is, for policies that judge the program a
// child will run (process' allow/deny_commands, terminal's shells): the
// file behind its symbolic links, whether every link on the way is a system
// link (so a name it gives, like sh -> dash, is the operator's and not a
// caller's), and whether it is a binary, a #! script (with its interpreter)
// or something the kernel would not run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::sdk {

enum class ProgramKind {
  missing, /**< not found (or not an executable regular file) */
  binary,  /**< ELF, or not readable (then nothing but the kernel reads it either) */
  script,  /**< starts with #!: ProgramIdentity::interpreter runs it */
  other    /**< neither: a shell would run it as a script, binfmt_misc as something */
};

struct ProgramIdentity {
  std::string given;               /**< the word as written */
  std::optional<std::string> path; /**< where it is found, normalised, links not followed */
  std::optional<std::string> real; /**< the file behind every link */
  /** Every symbolic link from path to real is root's, in a root-owned directory
   *  only root may write (with the server running as root: a system directory). */
  bool system_links = true;
  ProgramKind kind = ProgramKind::missing;
  /** For a script: the interpreter path and, when the #! line has one, its argument. */
  std::vector<std::string> interpreter;
};

/**
 * Since 1.3. Identifies the program file at @p path (absolute and
 * normalised, links not followed: where a spawn finds it): its real file,
 * whether its links are system links, its kind and a script's interpreter.
 * `given` is left empty for the caller to fill.
 */
ABX_SDK_API ProgramIdentity identifyProgramFile(const std::string& path);

/**
 * Since 1.3. The interpreter of a #! line as Linux reads it (at most 256
 * bytes): the path, then everything after it on the line (trimmed) as one
 * argument. Empty when @p head does not start with "#!" or names no
 * interpreter.
 */
ABX_SDK_API std::vector<std::string> shebangInterpreter(std::string_view head);

}  // namespace abx::sdk
