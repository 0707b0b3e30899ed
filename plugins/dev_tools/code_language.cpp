#include "code_language.h"

#include <algorithm>

#include "dev_tools_vocabulary.h"
namespace abx::plugins::dev_tools {

std::optional<CodeCommand> codeCommand(std::string_view language, const std::string& code) {
  struct Form {
    std::string_view language, program, inline_flag, stdin_flag;
  };
  static constexpr Form kForms[] = {
      {"python", "python3", "-c", "-"}, {"node", "node", "-e", "-"}, {"bash", "bash", "-c", "-s"}};
  for (const Form& form : kForms) {
    if (form.language != language) continue;
    CodeCommand command;
    command.argv.emplace_back(form.program);
    if (code.size() <= kArgvCodeBytes) {
      command.argv.emplace_back(form.inline_flag);
      command.argv.push_back(code);
    } else {
      command.argv.emplace_back(form.stdin_flag);
      command.stdin_data = code;
    }
    return command;
  }
  return std::nullopt;
}

std::optional<sdk::HttpError> checkLanguage(std::string_view language, const sdk::Params& params) {
  if (std::find(std::begin(kLanguages), std::end(kLanguages), language) == std::end(kLanguages)) {
    std::string names;
    for (auto name : kLanguages) names += (names.empty() ? "" : ", ") + std::string(name);
    return sdk::HttpError::badRequest("Unsupported language '" + std::string(language) +
                                      "'; supported: " + names);
  }
  auto allowed = params.strings(kLanguagesParam);
  if (allowed && std::find(allowed->begin(), allowed->end(), language) == allowed->end())
    return sdk::HttpError{403, "Language not allowed by policy: " + std::string(language),
                          "PermissionError", "language_not_allowed"};
  return std::nullopt;
}

}  // namespace abx::plugins::dev_tools
