// The file a shell path really starts, for params.shells: a name is only
// trusted when the symbolic links that give it are system links (root's, in
// a root-owned directory no one else may write), so a caller's link called
// "bash" that points to another program is judged as that program; and a #!
// script's interpreter must be allowed too.
#pragma once

#include <string>
#include <vector>

namespace abx::plugins::terminal {

/**
 * True when the program behind @p resolved (an absolute path) is on
 * @p allowed as well: no links, or system links only, or the real file's
 * path or basename on the list; for a #! script, its interpreter on the list
 * too (by path or basename, links followed).
 */
bool shellFileAllowed(const std::string& resolved, const std::vector<std::string>& allowed);

}  // namespace abx::plugins::terminal
