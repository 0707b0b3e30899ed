// The simple commands of a `sh -c` string, read without running it, for the
// command policy: the POSIX shell's quoting, operators, redirections, and
// compound commands (if, while, until, for, case, { }, ( ), functions), with
// every word marked fixed or expanded. What a reader cannot judge is refused
// rather than guessed: command and process substitution, arithmetic, here-
// documents, computed expansions (${!x}, ${x[...]}, ${x:offset}, ${x@P}),
// unbalanced quotes, and any mention of PATH or of a variable that makes a
// shell or the loader run code (BASH_ENV, PS4, LD_PRELOAD, ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"
#include "launchers.h"

namespace abx::plugins::process {

struct ShellCommand {
  std::vector<Word> words; /**< the command's words; leading NAME=value assignments removed */
};

struct ShellScript {
  std::vector<ShellCommand> commands; /**< in the order they appear */
  std::vector<std::string> functions; /**< names the script defines (their bodies are commands) */
};

/**
 * The commands of @p text. Failure (ValueError) when something in it cannot
 * be judged; the message says what ("command substitution", ...).
 */
sdk::Result<ShellScript> parseShellScript(std::string_view text);

}  // namespace abx::plugins::process
