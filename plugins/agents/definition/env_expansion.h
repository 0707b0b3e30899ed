// ${VAR} expansion for agent definition files the server loads itself
// (ABX_AGENTS_CONFIG). HTTP bodies are never expanded: the client resolved
// its placeholders before sending.
//
// Syntax: `${NAME}` with NAME = [A-Za-z_][A-Za-z0-9_]*, replaced by the
// variable's value. `$${` is an escape for a literal `${`. A `$` not followed
// by `{` is literal. An unset variable is an error naming it (never ""); so is
// a malformed placeholder (`${`, `${1X}`, `${A:-b}`).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/child_environment.h"

namespace abx::plugins::agents {

/** Looks a variable up; nullopt when it is unset. Injected so tests need no real environment. */
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/** The server's start-up environment without its own secrets (what its
 *  children start from); @p environment must outlive the lookup. */
EnvLookup environmentLookup(const sdk::ChildEnvironment& environment);

struct ExpandedString {
  std::string value;
  /** The text held at least one ${NAME} placeholder (an escaped `$${` does not count). */
  bool had_placeholder = false;
  /** Empty on success, else why it failed ("environment variable X is not set"). */
  std::string error;
};

ExpandedString expandPlaceholders(std::string_view text, const EnvLookup& env);

}  // namespace abx::plugins::agents
