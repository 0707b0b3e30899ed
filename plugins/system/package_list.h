// GET /packages: which command lists a manager's packages, and how its JSON
// output becomes [{"name", "version"}].
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/status.h"
#include "abx/sdk/subprocess.h"

namespace abx::plugins::system {

struct Package {
  std::string name;
  std::string version;
};

/** The argv for "pip" or "npm"; nullopt for any other manager. */
std::optional<std::vector<std::string>> packageListArgv(std::string_view manager);

/** `pip list --format=json`: [{"name","version"}, ...]. ValueError on anything else. */
sdk::Result<std::vector<Package>> parsePipList(std::string_view json);

/**
 * `npm ls -g --json --depth=0`: {"dependencies": {"<name>": {"version"}}};
 * no "dependencies" is an empty list. ValueError when not a JSON object.
 */
sdk::Result<std::vector<Package>> parseNpmList(std::string_view json);

/**
 * Turns a finished listing run into packages or a failure: timeout ->
 * TimeoutError, output cut -> OutputLimitError, unparsable output with a
 * non-zero exit -> CommandError (with the stderr tail), unparsable output
 * otherwise -> ValueError. Output that parses is used whatever the exit code
 * (npm exits 1 on peer-dependency problems yet prints the list). pip's "No
 * module named pip" means pip is not installed: an empty list.
 */
sdk::Result<std::vector<Package>> interpretPackageRun(std::string_view manager,
                                                      const sdk::Completed& run,
                                                      std::chrono::milliseconds timeout);

/** {"manager": ..., "packages": [...]} */
std::string packagesJson(std::string_view manager, const std::vector<Package>& packages);

}  // namespace abx::plugins::system
