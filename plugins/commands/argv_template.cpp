// Placeholder syntax is deliberately small: one token form and no escapes,
// so an author can predict exactly which braces are substituted.
#include "argv_template.h"

#include <algorithm>
#include <variant>

#include "command_args.h"

namespace abx::plugins::commands {
namespace {

bool identStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool identChar(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

std::vector<TemplatePart> parseTemplate(std::string_view element) {
  std::vector<TemplatePart> parts;
  std::string literal;
  std::size_t i = 0;
  while (i < element.size()) {
    if (element[i] == '{' && (i == 0 || element[i - 1] != '$') && i + 1 < element.size() &&
        identStart(element[i + 1])) {
      std::size_t end = i + 2;
      while (end < element.size() && identChar(element[end])) ++end;
      if (end < element.size() && element[end] == '}') {
        if (!literal.empty()) parts.push_back({false, std::move(literal)});
        literal.clear();
        parts.push_back({true, std::string(element.substr(i + 1, end - i - 1))});
        i = end + 1;
        continue;
      }
    }
    literal += element[i++];
  }
  if (!literal.empty()) parts.push_back({false, std::move(literal)});
  return parts;
}

std::vector<std::string> placeholderNames(std::string_view element) {
  std::vector<std::string> names;
  for (auto& part : parseTemplate(element))
    if (part.placeholder) names.push_back(std::move(part.text));
  return names;
}

std::vector<std::string> expandArgv(const std::vector<std::string>& argv,
                                    const sdk::CommandArgs& args) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const auto& element : argv) {
    auto parts = parseTemplate(element);
    if (parts.size() == 1 && parts[0].placeholder && !args.contains(parts[0].text)) continue;
    std::string text;
    for (const auto& part : parts) {
      if (!part.placeholder) {
        text += part.text;
      } else if (auto it = args.find(part.text); it != args.end()) {
        text += valueText(it->second);
      }
    }
    out.push_back(std::move(text));
  }
  return out;
}

std::optional<std::string> optionLikeArgument(const std::vector<std::string>& argv,
                                              const sdk::CommandArgs& args,
                                              const std::vector<std::string>& allow_dash) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    for (const auto& part : parseTemplate(argv[i])) {
      if (!part.placeholder) break;  // the author's text starts the element
      auto it = args.find(part.text);
      if (it == args.end()) continue;
      const std::string text = valueText(it->second);
      if (text.empty()) continue;
      const bool dash = text.front() == '-' && std::holds_alternative<std::string>(it->second);
      if (dash && std::find(allow_dash.begin(), allow_dash.end(), part.text) == allow_dash.end())
        return part.text;
      break;
    }
  }
  return std::nullopt;
}

}  // namespace abx::plugins::commands
