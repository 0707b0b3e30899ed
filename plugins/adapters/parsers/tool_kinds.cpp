// Tool-name classification and exit-code extraction for stream-json tools.
#include "tool_kinds.h"

#include <array>
#include <charconv>

namespace abx::plugins::adapters {
namespace {

// Claude Code names first, then Qwen Code's (from the transcripts' init
// `tools` lists); a tool not listed here is "other".
constexpr std::array<std::string_view, 4> kCommandTools{"Bash", "run_shell_command", "shell",
                                                        "BashOutput"};
constexpr std::array<std::string_view, 8> kFileTools{
    "Edit", "MultiEdit", "Write", "NotebookEdit", "edit", "write_file", "replace", "notebook_edit"};
constexpr std::array<std::string_view, 5> kWebTools{"WebSearch", "WebFetch", "web_search",
                                                    "web_fetch", "google_web_search"};
constexpr std::array<std::string_view, 2> kTodoTools{"TodoWrite", "todo_write"};

bool listed(std::span<const std::string_view> names, std::string_view name) {
  for (auto n : names)
    if (n == name) return true;
  return false;
}

std::optional<int> leadingInt(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

}  // namespace

std::string builtinToolKind(std::string_view name, const BuiltinToolNames& names) {
  return listed(names.command, name)       ? "command"
         : listed(names.file_change, name) ? "file_change"
         : listed(names.web_search, name)  ? "web_search"
         : listed(names.todo_list, name)   ? "todo_list"
                                           : "other";
}

ToolKind classifyToolName(std::string_view name) {
  constexpr std::string_view kMcp = "mcp__";
  if (name.starts_with(kMcp)) {
    auto rest = name.substr(kMcp.size());
    auto sep = rest.find("__");
    if (sep != std::string_view::npos)
      return {"mcp", std::string(rest.substr(0, sep)), std::string(rest.substr(sep + 2))};
  }
  static constexpr BuiltinToolNames kStreamJsonTools{kCommandTools, kFileTools, kWebTools,
                                                     kTodoTools};
  return {builtinToolKind(name, kStreamJsonTools), "", std::string(name)};
}

std::optional<int> exitCodeFromToolResult(std::string_view content) {
  constexpr std::string_view kClaude = "Exit code ";
  if (content.starts_with(kClaude)) return leadingInt(content.substr(kClaude.size()));
  constexpr std::string_view kQwen = "\nExit Code: ";
  auto pos = content.find(kQwen);
  if (pos != std::string_view::npos) return leadingInt(content.substr(pos + kQwen.size()));
  return std::nullopt;
}

std::string wireToolName(const ToolKind& kind) {
  if (kind.kind == "command") return "command_execution";
  if (kind.kind == "mcp" || kind.kind == "other") return kind.name;
  return kind.kind;
}

std::string contentText(const sdk::Json& o) {
  if (auto parts = json::arr(o, "content"); parts.isArray()) {
    std::string text;
    for (const auto& part : parts.elements())
      if (json::str(part, "type") == "text") text += json::str(part, "text");
    return text;
  }
  return json::text(o, "content");
}

}  // namespace abx::plugins::adapters
