// Every problem in the file is a load error that names the file, the line,
// the command and the problem: a half-loaded commands file would leave a
// template silently missing the command its users call.
#include "commands_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "argv_template.h"
#include "command_args.h"

namespace abx::plugins::commands {
namespace {

using sdk::Result;
using sdk::Status;

constexpr const char* kCommandKeys =
    "name, description, argv, args, output, timeout_seconds, max_output_bytes, hidden, scopes, "
    "env, cwd";
constexpr const char* kArgKeys = "name, type, required, default, description, allow_dash";

bool isIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A command name is one URL path segment: POST /commands/{name}.
bool isCommandName(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(),
                     [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                              c == '.';
                     }) &&
         s != "." && s != "..";
}

/** Builds "<source>:<line>: command '<name>': <problem>" messages. */
class Where {
 public:
  Where(std::string_view source, std::string command)
      : source_(source), command_(std::move(command)) {}
  void name(std::string n) { command_ = "command '" + n + "'"; }
  Status fail(const YAML::Node& at, const std::string& problem) const {
    std::string msg(source_);
    if (at.Mark().line >= 0) msg += ":" + std::to_string(at.Mark().line + 1);
    msg += ": ";
    if (!command_.empty()) msg += command_ + ": ";
    return Status::error(msg + problem, "ValueError");
  }

 private:
  std::string_view source_;
  std::string command_;
};

Result<std::string> scalarText(const YAML::Node& node, const Where& where, const std::string& key) {
  if (node.IsNull()) return std::string();
  if (!node.IsScalar()) return where.fail(node, "'" + key + "' must be a string");
  return node.Scalar();
}

Result<bool> boolean(const YAML::Node& node, const Where& where, const std::string& key) {
  bool out = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, out))
    return where.fail(node, "'" + key + "' must be true or false");
  return out;
}

Result<std::vector<std::string>> stringList(const YAML::Node& node, const Where& where,
                                            const std::string& key) {
  std::vector<std::string> out;
  if (node.IsNull()) return out;
  if (!node.IsSequence()) return where.fail(node, "'" + key + "' must be a list of strings");
  for (const auto& item : node) {
    if (!item.IsScalar()) return where.fail(item, "'" + key + "' must be a list of strings");
    out.push_back(item.Scalar());
  }
  return out;
}

// Rejects duplicate keys (yaml-cpp keeps both) and keys outside @p allowed.
Status checkKeys(const YAML::Node& map, const Where& where, const std::set<std::string>& allowed,
                 const char* allowed_text, const std::string& what) {
  std::set<std::string> seen;
  for (const auto& kv : map) {
    std::string key = kv.first.Scalar();
    if (!allowed.contains(key))
      return where.fail(kv.first,
                        "unknown " + what + "key '" + key + "' (allowed: " + allowed_text + ")");
    if (!seen.insert(key).second) return where.fail(kv.first, "duplicate key '" + key + "'");
  }
  return Status::ok();
}

Result<sdk::ArgType> argType(const std::string& name) {
  if (name == "string" || name.empty()) return sdk::ArgType::string;
  if (name == "integer") return sdk::ArgType::integer;
  if (name == "float") return sdk::ArgType::floating;
  if (name == "boolean") return sdk::ArgType::boolean;
  return Status::error("unknown type '" + name + "' (one of string, integer, float, boolean)");
}

// @p allow_dash receives the arg's `allow_dash` (an argv rule, not part of the SDK's CommandArg).
Result<sdk::CommandArg> parseArg(const YAML::Node& node, Where where,
                                 const std::set<std::string>& taken, bool& allow_dash) {
  if (!node.IsMap()) return where.fail(node, "each of 'args' must be a mapping");
  static const std::set<std::string> allowed{"name",    "type",        "required",
                                             "default", "description", "allow_dash"};
  if (auto s = checkKeys(node, where, allowed, kArgKeys, "arg "); !s) return s;

  sdk::CommandArg arg;
  auto name = node["name"] ? scalarText(node["name"], where, "name") : Result<std::string>("");
  if (!name) return name.status();
  if (name->empty()) return where.fail(node, "an arg is missing 'name'");
  if (!isIdentifier(*name))
    return where.fail(node["name"], "arg name '" + *name + "' must match [A-Za-z_][A-Za-z0-9_]*");
  if (taken.contains(*name)) return where.fail(node["name"], "duplicate arg '" + *name + "'");
  arg.name = *name;

  std::string prefix = "arg '" + arg.name + "': ";
  if (node["type"]) {
    auto type_name = scalarText(node["type"], where, "type");
    if (!type_name) return type_name.status();
    auto type = argType(*type_name);
    if (!type) return where.fail(node["type"], prefix + type.status().message());
    arg.type = *type;
  }
  if (node["required"]) {
    auto required = boolean(node["required"], where, "required");
    if (!required) return required.status();
    arg.required = *required;
  }
  if (node["description"]) {
    auto text = scalarText(node["description"], where, "description");
    if (!text) return text.status();
    arg.description = *text;
  }
  allow_dash = false;
  if (node["allow_dash"]) {
    auto allowed_dash = boolean(node["allow_dash"], where, "allow_dash");
    if (!allowed_dash) return allowed_dash.status();
    allow_dash = *allowed_dash;
  }
  if (const auto& def = node["default"]; def && !def.IsNull()) {
    if (!def.IsScalar()) return where.fail(def, prefix + "'default' must be a scalar");
    // The same coercion a request gets, so "5" is an integer default.
    auto value = coerceArg(arg.name, arg.type, sdk::JsonScalar(def.Scalar()));
    if (!value) {
      const std::string& m = value.status().message();
      return where.fail(def, prefix + "default " + m.substr(m.find("must be")));
    }
    arg.default_value = std::move(*value);
  }
  return arg;
}

// The declared args, before argv, whose placeholders must name them.
Status parseArgs(const YAML::Node& node, const Where& where, DeclarativeCommand& cmd) {
  if (const auto& args = node["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) return where.fail(args, "'args' must be a list");
    std::set<std::string> taken;
    for (const auto& item : args) {
      bool allow_dash = false;
      auto arg = parseArg(item, where, taken, allow_dash);
      if (!arg) return arg.status();
      taken.insert(arg->name);
      if (allow_dash) cmd.allow_dash.push_back(arg->name);
      cmd.args.push_back(std::move(*arg));
    }
  }
  return Status::ok();
}

// The program and its arguments: argv[0] is fixed text, placeholders name declared args.
Status parseArgv(const YAML::Node& node, const Where& where, DeclarativeCommand& cmd) {
  if (!node["argv"] || node["argv"].IsNull()) return where.fail(node, "missing 'argv'");
  auto argv = stringList(node["argv"], where, "argv");
  if (!argv) return argv.status();
  if (argv->empty() || argv->front().empty())
    return where.fail(node["argv"], "'argv' must start with a program");
  // The caller never picks the program: argv[0] is fixed text.
  if (!placeholderNames(argv->front()).empty())
    return where.fail(node["argv"], "argv[0] must not contain a placeholder");
  for (const auto& element : *argv) {
    for (const auto& ph : placeholderNames(element)) {
      bool declared = std::any_of(cmd.args.begin(), cmd.args.end(),
                                  [&](const sdk::CommandArg& a) { return a.name == ph; });
      if (!declared)
        return where.fail(node["argv"], "placeholder '{" + ph + "}' is not a declared arg");
    }
  }
  cmd.argv = std::move(*argv);
  return Status::ok();
}

// The output mode and the limits of one run.
Status parseLimits(const YAML::Node& node, const Where& where, DeclarativeCommand& cmd) {
  if (node["output"]) {
    auto output = scalarText(node["output"], where, "output");
    if (!output) return output.status();
    if (*output == "text") {
      cmd.output = OutputMode::text;
    } else if (*output == "json") {
      cmd.output = OutputMode::json;
    } else {
      return where.fail(node["output"], "'output' must be text or json, got '" + *output + "'");
    }
  }

  if (const auto& t = node["timeout_seconds"]; t && !t.IsNull()) {
    double seconds = 0;
    if (!t.IsScalar() || !YAML::convert<double>::decode(t, seconds) || !std::isfinite(seconds) ||
        seconds <= 0 || seconds > 86400.0 * 365)
      return where.fail(t, "'timeout_seconds' must be a positive number");
    cmd.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
  }

  if (const auto& m = node["max_output_bytes"]; m && !m.IsNull()) {
    auto bytes = m.IsScalar() ? parseByteSize(m.Scalar()) : std::nullopt;
    if (!bytes) return where.fail(m, "'max_output_bytes' must be a positive size (1048576, 1MiB)");
    cmd.max_output_bytes = *bytes;
  }
  return Status::ok();
}

// Who sees and runs the command, and what it starts with.
Status parseExposure(const YAML::Node& node, const Where& where, DeclarativeCommand& cmd,
                     std::string_view base_dir) {
  if (node["hidden"]) {
    auto hidden = boolean(node["hidden"], where, "hidden");
    if (!hidden) return hidden.status();
    cmd.hidden = *hidden;
  }

  if (node["scopes"]) {
    auto scopes = stringList(node["scopes"], where, "scopes");
    if (!scopes) return scopes.status();
    cmd.scopes = std::move(*scopes);
  }

  if (const auto& env = node["env"]; env && !env.IsNull()) {
    if (!env.IsMap()) return where.fail(env, "'env' must be a mapping of NAME: value");
    std::set<std::string> seen;
    for (const auto& kv : env) {
      std::string key = kv.first.Scalar();
      if (!isIdentifier(key))
        return where.fail(kv.first, "env name '" + key + "' must match [A-Za-z_][A-Za-z0-9_]*");
      if (!seen.insert(key).second) return where.fail(kv.first, "duplicate env '" + key + "'");
      if (!kv.second.IsScalar() && !kv.second.IsNull())
        return where.fail(kv.second, "env '" + key + "' must be a string");
      cmd.env.emplace_back(key, kv.second.IsNull() ? "" : kv.second.Scalar());
    }
  }

  if (node["cwd"]) {
    auto cwd = scalarText(node["cwd"], where, "cwd");
    if (!cwd) return cwd.status();
    cmd.cwd = *cwd;
    if (!cmd.cwd.empty() && cmd.cwd.front() != '/' && !base_dir.empty())
      cmd.cwd = std::string(base_dir) + "/" + cmd.cwd;
  }
  return Status::ok();
}

Result<DeclarativeCommand> parseCommand(const YAML::Node& node, std::size_t index,
                                        std::string_view source, std::string_view base_dir) {
  Where where(source, "command #" + std::to_string(index + 1));
  if (!node.IsMap()) return where.fail(node, "expected a mapping");
  DeclarativeCommand cmd;

  // The name first, so every later error can name the command.
  if (node["name"] && node["name"].IsScalar()) where.name(node["name"].Scalar());
  static const std::set<std::string> allowed{
      "name",   "description", "argv", "args", "output", "timeout_seconds", "max_output_bytes",
      "hidden", "scopes",      "env",  "cwd"};
  if (auto s = checkKeys(node, where, allowed, kCommandKeys, ""); !s) return s;

  auto name = node["name"] ? scalarText(node["name"], where, "name") : Result<std::string>("");
  if (!name) return name.status();
  if (name->empty()) return where.fail(node, "missing 'name'");
  if (!isCommandName(*name))
    return where.fail(node["name"], "name must match [A-Za-z0-9_.-]+ (it is a URL path segment)");
  cmd.name = *name;

  if (node["description"]) {
    auto text = scalarText(node["description"], where, "description");
    if (!text) return text.status();
    cmd.description = *text;
  }

  if (auto s = parseArgs(node, where, cmd); !s) return s;
  if (auto s = parseArgv(node, where, cmd); !s) return s;
  if (auto s = parseLimits(node, where, cmd); !s) return s;
  if (auto s = parseExposure(node, where, cmd, base_dir); !s) return s;
  return cmd;
}

std::string directoryOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::optional<std::size_t> parseByteSize(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::uint64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::map<std::string, std::uint64_t> units{
      {"", 1},          {"b", 1},      {"kb", 1000},    {"mb", 1000000},   {"gb", 1000000000},
      {"k", 1024},      {"kib", 1024}, {"m", 1u << 20}, {"mib", 1u << 20}, {"g", 1u << 30},
      {"gib", 1u << 30}};
  auto it = units.find(unit);
  if (it == units.end() || number == 0) return std::nullopt;
  if (number > std::numeric_limits<std::size_t>::max() / it->second) return std::nullopt;
  return static_cast<std::size_t>(number * it->second);
}

Result<std::vector<DeclarativeCommand>> parseCommandsYaml(std::string_view text,
                                                          std::string_view source,
                                                          std::string_view base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Status::error(
        std::string(source) + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg,
        "ValueError");
  }
  std::vector<DeclarativeCommand> out;
  Where where(source, "");
  if (!root || root.IsNull()) return out;  // an empty file declares no commands
  if (!root.IsMap()) return where.fail(root, "expected a mapping with a 'commands' list");
  static const std::set<std::string> allowed{"commands"};
  if (auto s = checkKeys(root, where, allowed, "commands", "top-level "); !s) return s;
  const YAML::Node commands = root["commands"];
  if (!commands || commands.IsNull()) return out;
  if (!commands.IsSequence()) return where.fail(commands, "'commands' must be a list");

  std::map<std::string, int> first_line;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    Result<DeclarativeCommand> cmd = Status::error("unreachable");
    // yaml-cpp throws on shapes the checks above did not foresee; that is
    // still a load error of this file, not a crash of start().
    try {
      cmd = parseCommand(commands[i], i, source, base_dir);
    } catch (const YAML::Exception& e) {
      return where.fail(commands[i], "command #" + std::to_string(i + 1) + ": " + e.what());
    }
    if (!cmd) return cmd.status();
    auto [it, inserted] = first_line.emplace(cmd->name, commands[i].Mark().line + 1);
    if (!inserted) {
      Where dup(source, "command '" + cmd->name + "'");
      return dup.fail(commands[i], "duplicate command name (first defined at line " +
                                       std::to_string(it->second) + ")");
    }
    out.push_back(std::move(*cmd));
  }
  return out;
}

Result<std::vector<DeclarativeCommand>> loadCommandsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("Cannot read commands file '" + path + "'", "OSError");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::error("Cannot read commands file '" + path + "'", "OSError");
  return parseCommandsYaml(text.str(), path, directoryOf(path));
}

}  // namespace abx::plugins::commands
