// The languages of POST /code/run and how each one runs: python -> python3
// -c, node -> node -e, bash -> bash -c (spec §4.7). Code too long for one
// argv string (Linux caps each at 128 KiB) goes through stdin instead:
// python3 -, node -, bash -s.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/http_error.h"
#include "abx/sdk/policy.h"

namespace abx::plugins::dev_tools {

/** The language names, in the order error messages list them. */
inline constexpr std::string_view kLanguages[] = {"python", "node", "bash"};

/** Code longer than this many bytes is fed on stdin instead of argv. */
inline constexpr std::size_t kArgvCodeBytes = 100u * 1024;

struct CodeCommand {
  std::vector<std::string> argv;
  std::string stdin_data; /**< the code, when it is too long for argv */
};

/** nullopt for a language not in kLanguages. */
std::optional<CodeCommand> codeCommand(std::string_view language, const std::string& code);

/**
 * 400 ValueError for an unknown language (naming the supported ones); 403
 * PermissionError with code language_not_allowed when params.languages is
 * set and does not name it.
 */
std::optional<sdk::HttpError> checkLanguage(std::string_view language, const sdk::Params& params);

}  // namespace abx::plugins::dev_tools
