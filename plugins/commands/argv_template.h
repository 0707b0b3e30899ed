// argv templates of declarative commands: `{param}` placeholders inside argv
// elements, replaced by argument text with no shell involved, so every
// element stays exactly one argument whatever the caller sends.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/commands.h"

namespace abx::plugins::commands {

/** A literal run of text, or the name of a placeholder. */
struct TemplatePart {
  bool placeholder = false;
  std::string text;
};

/**
 * Splits one argv element. A placeholder is `{identifier}` (identifier =
 * [A-Za-z_][A-Za-z0-9_]*) not preceded by '$', so `${HOME}`, `{}` and
 * `{print $1}` stay literal text.
 */
std::vector<TemplatePart> parseTemplate(std::string_view element);

/** The placeholder names of one element, in order (duplicates kept). */
std::vector<std::string> placeholderNames(std::string_view element);

/**
 * Replaces placeholders with the text of @p args (see valueText). An element
 * that is exactly one placeholder of an absent argument is dropped, so an
 * optional argument can be left out of argv; inside a longer element an
 * absent argument is empty text.
 */
std::vector<std::string> expandArgv(const std::vector<std::string>& argv,
                                    const sdk::CommandArgs& args);

/**
 * The name of the first string argument whose text would begin an argv
 * element (after argv[0]) with '-', so that the program could read it as an
 * option (`--output=/path`), unless @p allow_dash names it; nullopt when
 * there is none. Empty texts before it in the element are skipped (`{a}{b}`
 * with a = "" is judged by b); text after a literal start is never judged.
 */
std::optional<std::string> optionLikeArgument(const std::vector<std::string>& argv,
                                              const sdk::CommandArgs& args,
                                              const std::vector<std::string>& allow_dash);

}  // namespace abx::plugins::commands
