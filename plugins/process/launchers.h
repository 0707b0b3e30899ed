// Programs that run another program named in their own arguments (env,
// nice, nohup, timeout, stdbuf, setsid, xargs, flock, ionice, taskset, time,
// sudo) and where, by each one's option grammar (GNU coreutils, findutils,
// util-linux, GNU time, sudo 1.9, all "stop at the first operand"), that
// program and its arguments begin — so a command policy judges the program
// that actually runs. Launchers whose target cannot be judged (su, chroot,
// strace, ...) are named so they are refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abx::plugins::process {

/** One argv word; `fixed` is false when a shell would expand it (only in sh -c strings). */
struct Word {
  std::string text;
  bool fixed = true;
};

std::vector<Word> fixedWords(const std::vector<std::string>& argv);

/** What a launcher changes for the program it starts. */
struct LaunchScope {
  std::vector<std::string> env; /**< "NAME=value" */
  std::string cwd;
  /** xargs: words read from stdin are appended to what it starts. */
  bool appended_args = false;
};

struct Launched {
  enum class Kind {
    nothing, /**< runs no other program (env without a command, sudo -v, ionice -p) */
    program, /**< runs `argv` */
    refused  /**< cannot be judged: `reason` */
  };
  Kind kind = Kind::nothing;
  std::vector<Word> argv;
  std::string reason;
};

/**
 * When @p name (a program's basename) is a launcher, what @p argv (argv[0]
 * is the launcher) starts, with @p scope updated (env -i / -u / NAME=value /
 * -C, sudo -D, xargs); nullopt for any other program.
 */
std::optional<Launched> unwrapLauncher(std::string_view name, const std::vector<Word>& argv,
                                       LaunchScope& scope);

/** Variables that make bash or sh run code of their own (BASH_ENV, ENV, PS4, BASH_FUNC_*, ...). */
bool isShellHookVariable(std::string_view name);

/** isShellHookVariable, or a variable that makes the loader load code (LD_*, GCONV_PATH). */
bool isHookVariable(std::string_view name);

}  // namespace abx::plugins::process
