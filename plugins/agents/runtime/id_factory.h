// IdFactory: ids of sessions (agsess_), turns (turn_), items (msg_, rs_,
// mcp_) — random hex by default, injectable so tests get predictable ids.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace abx::plugins::agents {

/** @return prefix + "_" + 24 random hex digits. THREAD: safe. */
std::string randomId(std::string_view prefix);

using IdFactory = std::function<std::string(std::string_view prefix)>;

}  // namespace abx::plugins::agents
