// What a program word really starts: the file the spawn finds (PATH lookup
// or the path as written), identified by the SDK (abx/sdk/program_identity.h).
#pragma once

#include <string_view>
#include <vector>

#include "abx/sdk/program_identity.h"

namespace abx::plugins::process {

using sdk::ProgramIdentity;
using sdk::ProgramKind;
using sdk::shebangInterpreter;

/**
 * Identifies @p given as the spawn (or a shell) would start it: resolved
 * with resolveProgram() against @p env's PATH and @p cwd, then followed
 * through its links, then its first bytes read.
 */
ProgramIdentity identifyProgram(std::string_view given, const std::vector<std::string>& env,
                                std::string_view cwd);

}  // namespace abx::plugins::process
