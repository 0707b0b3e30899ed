#include "command_chain.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "command_rules.h"
#include "launchers.h"
#include "process_vocabulary.h"
#include "program_identity.h"
#include "shell_script.h"

namespace abx::plugins::process {
namespace {

constexpr int kMaxDepth = 16;

/** Where a program word is judged: what starts it, and what it sees. */
struct Context {
  std::vector<std::string> env;
  std::string cwd;
  bool cwd_known = true;    // false once a shell string changes directory
  bool in_shell = false;    // words of a shell string: builtins and functions exist
  bool must_exist = false;  // a shell string may create what it runs: refuse the unknown
  bool appended = false;    // xargs appends words read from stdin
  std::vector<std::string> functions;
  std::vector<std::string> runners;  // what starts this program, outermost first
  int depth = 0;
};

sdk::HttpError cannotJudge(const std::string& program, const std::string& reason) {
  return sdk::HttpError{
      403, "Command '" + program + "' cannot be judged by the command policy: " + reason,
      "PermissionError", "command_not_allowed"};
}

sdk::HttpError notAllowed(const std::string& what, const ProgramIdentity& id,
                          const std::vector<std::string>& runners, const std::string& verdict) {
  std::string text = what + " '" + id.given + "'";
  // A link's name is not what runs: say what does.
  if (id.real && baseName(*id.real) != baseName(id.given)) text += " (really " + *id.real + ")";
  if (!runners.empty()) text += " (run by '" + runners.back() + "')";
  return sdk::HttpError{403, text + " is " + verdict, "PermissionError", "command_not_allowed"};
}

std::optional<sdk::HttpError> judgeIdentity(const ProgramIdentity& id, const sdk::Params& params,
                                            const std::vector<std::string>& runners) {
  auto matches = [&](const std::vector<std::string>& patterns) {
    return programMatches(patterns, id.given, id.path) ||
           (id.real && programMatches(patterns, *id.real, id.real));
  };
  // A name given by a caller's link does not vouch for what it points to.
  auto admits = [&](const std::vector<std::string>& patterns) {
    if (!programMatches(patterns, id.given, id.path)) return false;
    if (!id.real || id.real == id.path || id.system_links) return true;
    return programMatches(patterns, *id.real, id.real);
  };
  const auto deny = params.strings(kDenyCommands), allow = params.strings(kAllowCommands),
             shells = params.strings(kShells);
  if (deny && matches(*deny))
    return notAllowed("Command", id, runners, "denied by policy (params.deny_commands)");
  if (allow && !admits(*allow))
    return notAllowed("Command", id, runners, "not allowed by policy (params.allow_commands)");
  const bool shell = isShell(id.given) || (id.real && isShell(*id.real));
  if (shells && shell && !admits(*shells))
    return notAllowed("Shell", id, runners, "not allowed by policy (params.shells)");
  return std::nullopt;
}

bool hasWord(const ShellScript& script, std::initializer_list<std::string_view> names) {
  for (const auto& command : script.commands)
    for (const auto& word : command.words)
      if (std::find(names.begin(), names.end(), word.text) != names.end()) return true;
  return false;
}

bool hasRelativePathEntry(const std::vector<std::string>& env) {
  for (const auto& entry : env) {
    if (!entry.starts_with("PATH=")) continue;
    const std::string_view path = std::string_view(entry).substr(5);
    std::size_t start = 0;
    while (start <= path.size()) {
      auto end = path.find(':', start);
      if (end == std::string_view::npos) end = path.size();
      if (end == start || path[start] != '/') return true;
      start = end + 1;
    }
  }
  return false;
}

bool isIdentifier(std::string_view s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

class Judge {
 public:
  explicit Judge(const sdk::Params& params) : params_(params) {}

  std::optional<sdk::HttpError> argv(const std::vector<Word>& words, Context ctx) const;

 private:
  std::optional<std::optional<sdk::HttpError>> builtin(const std::vector<Word>& words,
                                                       const Context& ctx) const;
  std::optional<sdk::HttpError> variableBuiltin(const std::vector<Word>& words) const;
  std::optional<sdk::HttpError> shell(const std::vector<Word>& words, const Context& ctx,
                                      const std::string& shell_name) const;
  std::optional<sdk::HttpError> launcher(const std::string& name, const std::string& display,
                                         const std::vector<Word>& words, const Context& ctx) const;
  std::optional<sdk::HttpError> busybox(const std::vector<Word>& words, const Context& ctx,
                                        const std::string& given_name) const;

  const sdk::Params& params_;
};

std::optional<sdk::HttpError> Judge::argv(const std::vector<Word>& words, Context ctx) const {
  if (words.empty()) return std::nullopt;
  const std::string& name = words[0].text;
  if (ctx.depth > kMaxDepth) return cannotJudge(name, "it nests launchers too deeply");
  if (!words[0].fixed) return cannotJudge(name, "the program is not a fixed word");
  const bool has_slash = name.find('/') != std::string::npos;
  if (ctx.in_shell && !has_slash) {
    if (std::find(ctx.functions.begin(), ctx.functions.end(), name) != ctx.functions.end())
      return std::nullopt;  // a function of the script: its body is judged where it is defined
    if (auto verdict = builtin(words, ctx)) return *verdict;
  }
  if (!ctx.cwd_known && has_slash && name.front() != '/')
    return cannotJudge(name, "a relative path after a change of directory");
  if (!ctx.cwd_known && !has_slash && hasRelativePathEntry(ctx.env))
    return cannotJudge(name, "a relative PATH entry after a change of directory");
  const ProgramIdentity id = identifyProgram(name, ctx.env, ctx.cwd);
  if (ctx.must_exist && id.kind == ProgramKind::missing)
    return cannotJudge(name, "it is not found (or not executable) when the command arrives");
  if (auto refusal = judgeIdentity(id, params_, ctx.runners)) return refusal;
  if (id.kind == ProgramKind::other)
    return cannotJudge(name, "it is neither a binary nor a #! script");
  Context next = ctx;
  next.depth = ctx.depth + 1;
  next.runners.push_back(name);
  next.in_shell = false;
  if (id.kind == ProgramKind::script) {
    std::vector<Word> run = fixedWords(id.interpreter);
    run.push_back(Word{*id.path});
    run.insert(run.end(), words.begin() + 1, words.end());
    return argv(run, next);
  }
  const std::string given_name(baseName(name));
  const std::string real_name = id.real ? std::string(baseName(*id.real)) : given_name;
  if (real_name == "busybox") return busybox(words, next, given_name);
  return launcher(real_name, name, words, next);
}

std::optional<std::optional<sdk::HttpError>> Judge::builtin(const std::vector<Word>& words,
                                                            const Context& ctx) const {
  const std::string& name = words[0].text;
  static const std::set<std::string, std::less<>> kRefused = {
      "eval",     "source",  ".",       "trap", "alias", "hash",    "enable",    "bind",
      "complete", "compgen", "compopt", "fc",   "let",   "mapfile", "readarray", "coproc"};
  static const std::set<std::string, std::less<>> kInert = {
      ":",       "true",   "false",   "echo",  "printf",   "test",  "[",      "pwd",      "set",
      "shift",   "exit",   "return",  "break", "continue", "wait",  "umask",  "ulimit",   "times",
      "jobs",    "fg",     "bg",      "type",  "shopt",    "dirs",  "disown", "help",     "logout",
      "suspend", "caller", "unalias", "read",  "getopts",  "local", "export", "readonly", "declare",
      "typeset", "unset",  "cd",      "pushd", "popd"};
  if (kRefused.contains(name))
    return cannotJudge(name, "'" + name + "' runs or redefines code the policy cannot see");
  if (kInert.contains(name)) return variableBuiltin(words);
  if (name != "exec" && name != "command" && name != "builtin") return std::nullopt;
  Context next = ctx;
  next.functions.clear();  // all three skip the script's functions
  std::size_t i = 1;
  for (; i < words.size() && words[i].fixed && words[i].text.size() > 1 &&
         words[i].text.front() == '-';
       ++i) {
    const std::string& t = words[i].text;
    if (t == "--") {
      ++i;
      break;
    }
    if (name == "command" && t.find_first_of("vV") != std::string::npos)
      return std::optional<sdk::HttpError>{};  // prints where a command is; runs nothing
    if (name == "command" && t.find('p') != std::string::npos) {
      std::erase_if(next.env, [](const std::string& e) { return e.starts_with("PATH="); });
      next.env.emplace_back("PATH=/usr/bin:/bin");
    }
    if (name == "exec" && t.find('a') != std::string::npos) ++i;  // exec -a NAME
  }
  const std::vector<Word> rest(words.begin() + static_cast<long>(std::min(i, words.size())),
                               words.end());
  if (rest.empty()) return std::optional<sdk::HttpError>{};
  if (name == "builtin") {
    auto verdict = builtin(rest, next);
    return verdict ? *verdict : std::optional<sdk::HttpError>{};  // not a builtin: nothing runs
  }
  if (name == "exec") next.in_shell = false;  // exec starts a program, never a builtin
  return argv(rest, next);
}

std::optional<sdk::HttpError> Judge::variableBuiltin(const std::vector<Word>& words) const {
  const std::string& name = words[0].text;
  const bool declares = name == "declare" || name == "typeset" || name == "local" ||
                        name == "export" || name == "readonly";
  const bool names_only = name == "unset" || name == "read" || name == "getopts";
  for (std::size_t i = 1; i < words.size(); ++i) {
    const Word& w = words[i];
    if (name == "printf" && w.fixed && w.text == "-v") {
      if (i + 1 >= words.size() || !words[i + 1].fixed || !isIdentifier(words[i + 1].text))
        return cannotJudge(name, "printf -v names a computed variable or an array element");
      ++i;
      continue;
    }
    if (names_only && (!w.fixed || w.text.find('[') != std::string::npos))
      return cannotJudge(name, "'" + name + "' names a computed variable or an array element");
    if (!declares) continue;
    if (w.fixed && (w.text.starts_with('-') || w.text.starts_with('+'))) {
      if (name != "export" && name != "readonly" && w.text.find_first_of("in") != std::string::npos)
        return cannotJudge(name, "integer or reference variables (-i, -n)");
      continue;
    }
    if (!isIdentifier(w.text.substr(0, w.text.find('='))))
      return cannotJudge(name, "'" + name + "' names a computed variable or an array element");
  }
  return std::nullopt;
}

std::optional<sdk::HttpError> Judge::launcher(const std::string& name, const std::string& display,
                                              const std::vector<Word>& words,
                                              const Context& ctx) const {
  if (isShell(name)) return shell(words, ctx, name);
  LaunchScope scope{ctx.env, ctx.cwd, ctx.appended};
  auto launched = unwrapLauncher(name, words, scope);
  if (!launched) return std::nullopt;  // a program that starts no other one (as far as we know)
  if (launched->kind == Launched::Kind::refused) return cannotJudge(display, launched->reason);
  if (launched->kind == Launched::Kind::nothing) return std::nullopt;
  Context next = ctx;
  next.env = std::move(scope.env);
  next.cwd = std::move(scope.cwd);
  next.appended = scope.appended_args;
  return argv(launched->argv, next);
}

std::optional<sdk::HttpError> Judge::busybox(const std::vector<Word>& words, const Context& ctx,
                                             const std::string& given_name) const {
  std::vector<Word> applet_argv = words;
  if (given_name == "busybox") {
    if (words.size() < 2 || (words[1].fixed && words[1].text.starts_with("--")))
      return std::nullopt;  // --list, --install, --help
    if (!words[1].fixed) return cannotJudge("busybox", "the applet is not a fixed word");
    applet_argv.erase(applet_argv.begin());
  }
  ProgramIdentity applet;
  applet.given = applet_argv[0].text;
  if (auto refusal = judgeIdentity(applet, params_, ctx.runners)) return refusal;
  const std::string name = applet.given == "sh" || applet.given == "hush" ? "ash" : applet.given;
  return launcher(name, applet.given, applet_argv, ctx);
}

std::optional<sdk::HttpError> Judge::shell(const std::vector<Word>& words, const Context& ctx,
                                           const std::string& shell_name) const {
  const std::string& display = words[0].text;
  static const std::set<std::string, std::less<>> kFollowed = {"sh",    "bash", "dash",
                                                               "rbash", "ash",  "hush"};
  if (!kFollowed.contains(shell_name))
    return cannotJudge(display, "the commands " + shell_name + " runs cannot be read");
  if (baseName(display).starts_with('-')) return cannotJudge(display, "a login shell");
  for (const auto& entry : ctx.env)
    if (isShellHookVariable(entry.substr(0, entry.find('='))))
      return cannotJudge(display, "its environment sets " + entry.substr(0, entry.find('=')));
  std::size_t i = 1;
  bool command_mode = false;
  for (; i < words.size(); ++i) {
    if (!words[i].fixed) return cannotJudge(display, "an option a shell would expand");
    const std::string& t = words[i].text;
    if (t == "--" || t == "-") {
      ++i;
      break;
    }
    if (t.starts_with("--")) {
      if (t == "--help" || t == "--version") return std::nullopt;
      if (t == "--rcfile" || t == "--init-file") {
        ++i;
        continue;
      }
      static const std::set<std::string, std::less<>> kLong = {
          "--norc", "--noprofile", "--posix", "--noediting", "--restricted", "--verbose"};
      if (!kLong.contains(t)) return cannotJudge(display, "the option " + t);
      continue;
    }
    if (t.size() < 2 || (t[0] != '-' && t[0] != '+')) break;
    for (std::size_t k = 1; k < t.size(); ++k) {
      if (t[k] == 'c' && t[0] == '-') command_mode = true;
      if (t[k] == 'i' || t[k] == 'l' || t[k] == 's')
        return cannotJudge(display,
                           "an interactive, login or stdin shell (-" + std::string(1, t[k]) + ")");
      if (t[k] == 'o' || t[k] == 'O') ++i;  // the option's name follows
    }
  }
  if (!command_mode) return cannotJudge(display, "it runs commands from a file or from stdin");
  if (i >= words.size()) return cannotJudge(display, "its -c has no command string");
  if (!words[i].fixed) return cannotJudge(display, "its -c string is not fixed");
  auto script = parseShellScript(words[i].text);
  if (!script) return cannotJudge(display, "its -c string has " + script.status().message());
  Context inner = ctx;
  inner.in_shell = inner.must_exist = true;
  inner.appended = false;
  inner.functions = script->functions;
  if (hasWord(*script, {"cd", "pushd", "popd"})) inner.cwd_known = false;
  for (const auto& command : script->commands)
    if (auto refusal = argv(command.words, inner)) return refusal;
  return std::nullopt;
}

}  // namespace

bool hasCommandPolicy(const sdk::Params& params) {
  return params.find(kAllowCommands) || params.find(kDenyCommands) || params.find(kShells);
}

std::optional<sdk::HttpError> judgeCommand(const std::vector<std::string>& argv,
                                           const std::vector<std::string>& env,
                                           const std::string& cwd, const sdk::Params& params) {
  if (argv.empty()) return sdk::HttpError::badRequest("Command is empty");
  if (!hasCommandPolicy(params)) return std::nullopt;
  Context ctx;
  ctx.env = env;
  ctx.cwd = cwd;
  if (ctx.cwd.empty()) {  // the spawn keeps the server's own
    char buf[4096];
    ctx.cwd = ::getcwd(buf, sizeof buf) ? buf : "/";
  }
  return Judge(params).argv(fixedWords(argv), ctx);
}

}  // namespace abx::plugins::process
