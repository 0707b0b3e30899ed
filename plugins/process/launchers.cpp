#include "launchers.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

namespace abx::plugins::process {
namespace {

using Kind = Launched::Kind;

Launched refused(std::string reason) { return {Kind::refused, {}, std::move(reason)}; }
Launched nothing() { return {Kind::nothing, {}, {}}; }

/** The grammar of one launcher's options (getopt_long with a leading '+'). */
struct OptionGrammar {
  std::string_view short_with_arg;
  std::string_view short_optional_arg;  // -e[EOF]: only an attached value
  std::string_view short_flags;
  std::vector<std::string_view> long_with_arg;
  std::vector<std::string_view> long_optional_arg;
  std::vector<std::string_view> long_flags;
  bool numeric_options = false;  // nice -5, nice --5
};

struct Option {
  std::string name;  // "i", "unset"
  std::optional<std::string> value;
};

/**
 * Reads the options of @p argv from index 1 up to the first operand (or
 * "--"), calling @p on for each. @return the index of the first operand, or
 * nullopt with @p error set (unknown or ambiguous option, a missing value, a
 * word a shell would expand).
 */
std::optional<std::size_t> scanOptions(const std::vector<Word>& argv, const OptionGrammar& g,
                                       const std::function<void(const Option&)>& on,
                                       std::string& error) {
  const std::string launcher = argv.empty() ? std::string() : argv[0].text;
  auto fail = [&](const std::string& what) -> std::optional<std::size_t> {
    error = "'" + launcher + "' " + what;
    return std::nullopt;
  };
  std::size_t i = 1;
  while (i < argv.size()) {
    const Word& w = argv[i];
    if (!w.fixed) return fail("has an option a shell would expand: " + w.text);
    const std::string& t = w.text;
    if (t == "--") return i + 1;
    if (t.size() < 2 || t[0] != '-') return i;
    if (g.numeric_options) {
      const std::size_t digits = t[1] == '-' || t[1] == '+' ? 2 : 1;
      if (t.size() > digits && std::all_of(t.begin() + static_cast<long>(digits), t.end(),
                                           [](char c) { return std::isdigit(c); })) {
        on({"adjustment", t.substr(1)});
        ++i;
        continue;
      }
    }
    if (t[1] == '-') {  // --name[=value], unambiguous prefixes accepted as getopt_long does
      const auto eq = t.find('=');
      const std::string given = t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      std::vector<std::pair<std::string_view, int>> hits;  // 0 flag, 1 arg, 2 optional
      auto collect = [&](const std::vector<std::string_view>& names, int kind) {
        for (auto name : names)
          if (name == given)
            hits.assign(1, {name, kind});
          else if (name.starts_with(given) && !(hits.size() == 1 && hits[0].first == given))
            hits.emplace_back(name, kind);
      };
      collect(g.long_flags, 0);
      collect(g.long_with_arg, 1);
      collect(g.long_optional_arg, 2);
      if (hits.size() != 1)
        return fail(hits.empty() ? "has an unknown option " + t : "has an ambiguous option " + t);
      Option opt{std::string(hits[0].first), std::nullopt};
      if (eq != std::string::npos) {
        if (hits[0].second == 0) return fail("has a value for a flag: " + t);
        opt.value = t.substr(eq + 1);
      } else if (hits[0].second == 1) {
        if (i + 1 >= argv.size() || !argv[i + 1].fixed) return fail("misses the value of " + t);
        opt.value = argv[++i].text;
      }
      on(opt);
      ++i;
      continue;
    }
    for (std::size_t k = 1; k < t.size(); ++k) {  // a cluster: -iu NAME, -uNAME, -n5
      const char c = t[k];
      const std::string name(1, c);
      if (g.short_with_arg.find(c) != std::string_view::npos) {
        if (k + 1 < t.size()) {
          on({name, t.substr(k + 1)});
        } else {
          if (i + 1 >= argv.size() || !argv[i + 1].fixed)
            return fail("misses the value of -" + name);
          on({name, argv[++i].text});
        }
        break;
      }
      if (g.short_optional_arg.find(c) != std::string_view::npos) {
        on({name, k + 1 < t.size() ? std::optional<std::string>(t.substr(k + 1)) : std::nullopt});
        break;
      }
      if (g.short_flags.find(c) == std::string_view::npos)
        return fail("has an unknown option -" + name);
      on({name, std::nullopt});
    }
    ++i;
  }
  return i;
}

std::vector<Word> rest(const std::vector<Word>& argv, std::size_t from) {
  return from < argv.size() ? std::vector<Word>(argv.begin() + static_cast<long>(from), argv.end())
                            : std::vector<Word>{};
}

void setVariable(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  std::erase_if(env, [&](const std::string& e) { return e.starts_with(name + "="); });
  env.push_back(name + "=" + value);
}

bool isAssignmentWord(const std::string& text) {
  const auto eq = text.find('=');
  return eq != std::string::npos && eq > 0;
}

/** NAME=value words before the command (env, sudo): the scope's env changes, hooks refused. */
std::optional<std::string> takeAssignments(const std::vector<Word>& argv, std::size_t& i,
                                           LaunchScope& scope, const std::string& launcher) {
  for (; i < argv.size() && isAssignmentWord(argv[i].text); ++i) {
    if (!argv[i].fixed) return "'" + launcher + "' sets a variable a shell would expand";
    const std::string& text = argv[i].text;
    const std::string name = text.substr(0, text.find('='));
    if (isHookVariable(name)) return "'" + launcher + "' sets " + name;
    setVariable(scope.env, name, text.substr(text.find('=') + 1));
  }
  return std::nullopt;
}

/** The program at @p i, or nothing (or a refusal when xargs would supply it). */
Launched programAt(const std::vector<Word>& argv, std::size_t i, const LaunchScope& scope,
                   const std::string& launcher) {
  if (i < argv.size()) return {Kind::program, rest(argv, i), {}};
  if (scope.appended_args) return refused("xargs would give '" + launcher + "' its command");
  return nothing();
}

Launched env(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{
      "uCS",
      "",
      "i0v",
      {"unset", "chdir", "split-string"},
      {"block-signal", "default-signal", "ignore-signal"},
      {"ignore-environment", "null", "debug", "help", "version", "list-signal-handling"}};
  std::string error;
  bool stop = false, split = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "i" || o.name == "ignore-environment") scope.env.clear();
        if (o.name == "u" || o.name == "unset")
          std::erase_if(scope.env,
                        [&](const std::string& e) { return e.starts_with(*o.value + "="); });
        if (o.name == "C" || o.name == "chdir")
          scope.cwd = o.value->starts_with('/') ? *o.value : scope.cwd + "/" + *o.value;
        if (o.name == "S" || o.name == "split-string") split = true;
        if (o.name == "help" || o.name == "version" || o.name == "list-signal-handling")
          stop = true;
      },
      error);
  if (!at) return refused(error);
  if (split) return refused("'env -S' splits a string into a command");
  if (stop) return nothing();
  std::size_t i = *at;
  if (i < argv.size() && argv[i].text == "-" && argv[i].fixed) {
    scope.env.clear();
    ++i;
  }
  if (auto why = takeAssignments(argv, i, scope, "env")) return refused(*why);
  return programAt(argv, i, scope, "env");
}

/** Options, @p operands_before_command operands (timeout's duration), then the command. */
Launched simple(const std::vector<Word>& argv, LaunchScope& scope, const OptionGrammar& g,
                std::size_t operands_before_command) {
  std::string error;
  bool stop = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "help" || o.name == "version" || o.name == "h" || o.name == "V") stop = true;
      },
      error);
  if (!at) return refused(error);
  if (stop) return nothing();
  std::size_t i = *at;
  for (std::size_t k = 0; k < operands_before_command; ++k, ++i) {
    if (i >= argv.size()) return programAt(argv, i, scope, argv[0].text);
    if (!argv[i].fixed)
      return refused("'" + argv[0].text + "' has an operand a shell would expand");
  }
  return programAt(argv, i, scope, argv[0].text);
}

Launched xargs(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{
      "adEILnPs",
      "eil",
      "0oprtxv",
      {"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
      {"eof", "replace", "max-lines"},
      {"null", "open-tty", "interactive", "no-run-if-empty", "verbose", "exit", "show-limits",
       "help", "version"}};
  std::string error;
  bool replace = false, stop = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "I" || o.name == "i" || o.name == "replace") replace = true;
        if (o.name == "help" || o.name == "version") stop = true;
      },
      error);
  if (!at) return refused(error);
  if (stop) return nothing();
  if (replace) return refused("'xargs -I' puts words read from stdin into the command");
  scope.appended_args = true;
  if (*at >= argv.size()) return {Kind::program, {Word{"echo"}}, {}};
  return {Kind::program, rest(argv, *at), {}};
}

Launched flock(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{"wE",
                  "",
                  "sexnouFhV",
                  {"wait", "timeout", "conflict-exit-code"},
                  {},
                  {"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose",
                   "help", "version"}};
  std::string error;
  auto at = scanOptions(
      argv, g, [](const Option&) {}, error);
  if (!at) return refused(error);
  std::size_t i = *at + 1;  // after the lock file (or descriptor)
  if (i < argv.size() && argv[i].fixed && (argv[i].text == "-c" || argv[i].text == "--command")) {
    if (i + 1 >= argv.size() || !argv[i + 1].fixed)
      return refused("'flock -c' has no fixed command string");
    std::string shell = "/bin/sh";
    for (const auto& e : scope.env)
      if (e.starts_with("SHELL=") && e.size() > 6) shell = e.substr(6);
    return {Kind::program, {Word{shell}, Word{"-c"}, argv[i + 1]}, {}};
  }
  return programAt(argv, i, scope, "flock");
}

Launched ionice(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{"cnpPu", "",
                  "tVh",   {"class", "classdata", "pid", "pgid", "uid"},
                  {},      {"ignore", "help", "version"}};
  std::string error;
  bool ids = false, stop = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "p" || o.name == "P" || o.name == "u" || o.name == "pid" ||
            o.name == "pgid" || o.name == "uid")
          ids = true;
        if (o.name == "V" || o.name == "h" || o.name == "help" || o.name == "version") stop = true;
      },
      error);
  if (!at) return refused(error);
  if (ids || stop) return nothing();
  return programAt(argv, *at, scope, "ionice");
}

Launched taskset(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{"", "", "apchV", {}, {}, {"all-tasks", "pid", "cpu-list", "help", "version"}};
  std::string error;
  bool pid = false, stop = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "p" || o.name == "pid") pid = true;
        if (o.name == "h" || o.name == "V" || o.name == "help" || o.name == "version") stop = true;
      },
      error);
  if (!at) return refused(error);
  if (pid || stop) return nothing();
  return programAt(argv, *at + 1, scope, "taskset");  // after the mask
}

Launched sudo(const std::vector<Word>& argv, LaunchScope& scope) {
  OptionGrammar g{"aCDgpRrTtUu",
                  "",
                  "ABbEeHhiKklNnPSsVv",
                  {"auth-type", "close-from", "chdir", "group", "host", "prompt", "chroot", "role",
                   "command-timeout", "type", "other-user", "user"},
                  {"preserve-env"},
                  {"askpass", "bell", "background", "edit", "preserve-groups", "set-home", "help",
                   "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive",
                   "stdin", "shell", "version", "validate"}};
  std::string error, why;
  bool stop = false;
  auto at = scanOptions(
      argv, g,
      [&](const Option& o) {
        if (o.name == "e" || o.name == "edit") why = "'sudo -e' runs an editor";
        if (o.name == "i" || o.name == "login" || o.name == "s" || o.name == "shell")
          why = "'sudo -" + o.name.substr(0, 1) + "' runs a shell";
        if (o.name == "R" || o.name == "chroot") why = "'sudo -R' runs the command in another root";
        if (o.name == "D" || o.name == "chdir")
          scope.cwd = o.value->starts_with('/') ? *o.value : scope.cwd + "/" + *o.value;
        if (o.name == "h" || o.name == "help" || o.name == "V" || o.name == "version") stop = true;
      },
      error);
  if (!at) return refused(error);
  if (!why.empty()) return refused(why);
  if (stop) return nothing();
  std::size_t i = *at;
  if (auto bad = takeAssignments(argv, i, scope, "sudo")) return refused(*bad);
  return programAt(argv, i, scope, "sudo");
}

// Programs that start another one in a way this file does not follow: a
// login shell, another root or namespace, a tracer, a terminal multiplexer.
const std::set<std::string, std::less<>> kUnjudgeableLaunchers = {
    "su",       "runuser",  "sudoedit", "pkexec",   "doas",    "chroot",      "unshare",
    "nsenter",  "setpriv",  "capsh",    "chrt",     "prlimit", "systemd-run", "script",
    "watch",    "strace",   "ltrace",   "valgrind", "gdb",     "firejail",    "bwrap",
    "fakeroot", "faketime", "proot",    "parallel", "screen",  "tmux",        "expect",
    "sg",       "newgrp",   "setarch",  "linux32",  "linux64", "numactl",     "cpulimit"};

}  // namespace

std::vector<Word> fixedWords(const std::vector<std::string>& argv) {
  std::vector<Word> out;
  out.reserve(argv.size());
  for (const auto& a : argv) out.push_back(Word{a, true});
  return out;
}

bool isShellHookVariable(std::string_view name) {
  static const std::set<std::string, std::less<>> kShellHooks = {
      "BASH_ENV",       "ENV",        "SHELLOPTS", "BASHOPTS",     "PS4",
      "PROMPT_COMMAND", "EXECIGNORE", "BASH_CMDS", "BASH_ALIASES", "BASH_LOADABLES_PATH"};
  return kShellHooks.contains(name) || name.starts_with("BASH_FUNC_") ||
         name.find('%') != std::string_view::npos;
}

bool isHookVariable(std::string_view name) {
  return isShellHookVariable(name) || name.starts_with("LD_") || name == "GCONV_PATH";
}

std::optional<Launched> unwrapLauncher(std::string_view name, const std::vector<Word>& argv,
                                       LaunchScope& scope) {
  if (kUnjudgeableLaunchers.contains(name))
    return refused("'" + std::string(name) + "' starts programs in a way that cannot be followed");
  if (name == "env") return env(argv, scope);
  if (name == "nice")
    return simple(argv, scope, {"n", "", "", {"adjustment"}, {}, {"help", "version"}, true}, 0);
  if (name == "nohup") return simple(argv, scope, {"", "", "", {}, {}, {"help", "version"}}, 0);
  if (name == "timeout")
    return simple(argv, scope,
                  {"ks",
                   "",
                   "v",
                   {"kill-after", "signal"},
                   {},
                   {"foreground", "preserve-status", "verbose", "help", "version"}},
                  1);
  if (name == "stdbuf")
    return simple(argv, scope,
                  {"ioe", "", "", {"input", "output", "error"}, {}, {"help", "version"}}, 0);
  if (name == "setsid")
    return simple(argv, scope,
                  {"", "", "cfwhV", {}, {}, {"ctty", "fork", "wait", "help", "version"}}, 0);
  if (name == "time")
    return simple(argv, scope,
                  {"fo",
                   "",
                   "apqvV",
                   {"format", "output"},
                   {},
                   {"append", "portability", "quiet", "verbose", "help", "version"}},
                  0);
  if (name == "xargs") return xargs(argv, scope);
  if (name == "flock") return flock(argv, scope);
  if (name == "ionice") return ionice(argv, scope);
  if (name == "taskset") return taskset(argv, scope);
  if (name == "sudo") return sudo(argv, scope);
  return std::nullopt;
}

}  // namespace abx::plugins::process
