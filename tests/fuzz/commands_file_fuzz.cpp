// plugins_fuzz sub-target: the commands plugin's commands file parser
// (parseCommandsYaml) and its byte sizes (parseByteSize).
//
// Input: the YAML text. Checked: no exception escapes (a bad file is a load
// error naming the file, not a crash of the server's start), an error names
// the source; a parsed file has unique, non-empty command names, a fixed
// argv[0], positive limits, unique argument names, an absolute cwd or none;
// parseByteSize of the text is a positive size and gives the same size back
// for its own decimal spelling.
#include <set>
#include <string>
#include <string_view>

#include "commands_file.h"
#include "fuzz_check.h"

namespace abx::fuzz {

void fuzzCommandsFile(std::string_view data) {
  using namespace plugins::commands;
  auto parsed = parseCommandsYaml(data, "fuzz.yaml", "/base");
  if (!parsed) {
    check(parsed.status().message().starts_with("fuzz.yaml"), "an error names the file", data);
  } else {
    std::set<std::string> names;
    for (const auto& cmd : *parsed) {
      check(!cmd.name.empty() && names.insert(cmd.name).second, "unique command names", data);
      check(!cmd.argv.empty() && cmd.argv[0].find('{') == std::string::npos, "argv[0] is fixed",
            data);
      check(cmd.timeout.count() > 0 && cmd.max_output_bytes > 0, "positive limits", data);
      check(cmd.cwd.empty() || cmd.cwd.front() == '/', "an absolute cwd", data);
      std::set<std::string> args;
      for (const auto& a : cmd.args)
        check(!a.name.empty() && args.insert(a.name).second, "unique argument names", data);
    }
  }
  if (auto size = parseByteSize(data)) {
    check(*size > 0, "a byte size is positive", data);
    check(parseByteSize(std::to_string(*size)) == size, "a size reads back from its decimal", data);
  }
}

}  // namespace abx::fuzz
