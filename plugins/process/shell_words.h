// POSIX shell-word splitting without a shell: quotes and backslashes are
// honoured, nothing is expanded ($VAR, globs, ~, $(...) stay literal text)
// and operators (|, >, &&, ;) are ordinary words. A caller who wants a shell
// runs one: `sh -c '...'`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/status.h"

namespace abx::plugins::process {

/**
 * Splits @p text into argv words by the POSIX shell's quoting rules:
 * - blanks (space, tab, newline) separate words;
 * - '...' keeps everything literally up to the next quote;
 * - "..." keeps everything literally except that a backslash before
 *   $ ` " \ or a newline escapes it (a backslash-newline disappears);
 * - outside quotes a backslash escapes the next character (a
 *   backslash-newline disappears);
 * - quoted empty strings ('' or "") are empty words; '#' is an ordinary
 *   character (as Python's shlex.split).
 * Failures (ValueError): "No closing quotation", "No escaped character".
 */
sdk::Result<std::vector<std::string>> splitShellWords(std::string_view text);

/** @p word quoted so that splitShellWords() gives it back unchanged. */
std::string quoteShellWord(std::string_view word);

/** The words quoted and joined by single spaces (the display form of an argv). */
std::string joinShellWords(const std::vector<std::string>& words);

}  // namespace abx::plugins::process
