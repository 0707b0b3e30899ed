#include "program_identity.h"

#include "command_rules.h"

namespace abx::plugins::process {

ProgramIdentity identifyProgram(std::string_view given, const std::vector<std::string>& env,
                                std::string_view cwd) {
  ProgramIdentity id;
  if (auto path = resolveProgram(given, env, cwd)) id = sdk::identifyProgramFile(*path);
  id.given = std::string(given);
  return id;
}

}  // namespace abx::plugins::process
