#include "env_protection.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>

namespace abx::plugins::system {
namespace {

constexpr std::string_view kLoader = "dynamic loader and C library";
constexpr std::string_view kShell = "shell start-up and parsing";
constexpr std::string_view kGit = "git configuration and helpers";
constexpr std::string_view kInterpreter = "interpreter and build-tool hooks";
constexpr std::string_view kPackages = "package manager configuration";
constexpr std::string_view kNetwork = "proxies and TLS trust";
constexpr std::string_view kHelpers = "programs run on the user's behalf";
constexpr std::string_view kPlaces = "configuration, cache and temporary directories";

// NODE_ENV selects an application mode, not code to load.
constexpr std::string_view kSettableExceptions[] = {"NODE_ENV"};

}  // namespace

const std::vector<ProtectedEnvPattern>& protectedEnvPatterns() {
  static const std::vector<ProtectedEnvPattern> kPatterns = {
      {"LD_*", false, kLoader},
      {"DYLD_*", false, kLoader},
      {"GCONV_PATH", false, kLoader},
      {"GETCONF_DIR", false, kLoader},
      {"LOCPATH", false, kLoader},
      {"NLSPATH", false, kLoader},
      {"HOSTALIASES", false, kLoader},
      {"LOCALDOMAIN", false, kLoader},
      {"RES_OPTIONS", false, kLoader},
      {"RESOLV_HOST_CONF", false, kLoader},
      {"MALLOC_*", false, kLoader},
      {"GLIBC_TUNABLES", false, kLoader},
      {"BASH_ENV", false, kShell},
      {"ENV", false, kShell},
      {"ZDOTDIR", false, kShell},
      {"BASH_*", false, kShell},
      {"SHELLOPTS", false, kShell},
      {"BASHOPTS", false, kShell},
      {"PROMPT_COMMAND", false, kShell},
      {"PS[0-4]", false, kShell},
      {"IFS", false, kShell},
      {"CDPATH", false, kShell},
      {"GLOBIGNORE", false, kShell},
      {"INPUTRC", false, kShell},
      {"HISTFILE", false, kShell},
      {"GIT_*", false, kGit},
      {"PYTHON*", false, kInterpreter},
      {"NODE_*", false, kInterpreter},
      {"PERL5*", false, kInterpreter},
      {"PERLLIB", false, kInterpreter},
      {"RUBYOPT", false, kInterpreter},
      {"RUBYLIB", false, kInterpreter},
      {"GEM_HOME", false, kInterpreter},
      {"GEM_PATH", false, kInterpreter},
      {"JAVA_TOOL_OPTIONS", false, kInterpreter},
      {"_JAVA_OPTIONS", false, kInterpreter},
      {"JDK_JAVA_OPTIONS", false, kInterpreter},
      {"CLASSPATH", false, kInterpreter},
      {"GOFLAGS", false, kInterpreter},
      {"GOENV", false, kInterpreter},
      {"GOTOOLCHAIN", false, kInterpreter},
      {"LUA_INIT*", false, kInterpreter},
      {"LUA_PATH*", false, kInterpreter},
      {"LUA_CPATH*", false, kInterpreter},
      {"PHPRC", false, kInterpreter},
      {"PHP_INI_SCAN_DIR", false, kInterpreter},
      {"MAKEFLAGS", false, kInterpreter},
      {"GNUMAKEFLAGS", false, kInterpreter},
      {"MFLAGS", false, kInterpreter},
      {"*_PROXY", true, kNetwork},
      {"SSL_CERT_*", false, kNetwork},
      {"CURL_CA_BUNDLE", false, kNetwork},
      {"REQUESTS_CA_BUNDLE", false, kNetwork},
      {"SSLKEYLOGFILE", false, kNetwork},
      {"OPENSSL_*", false, kNetwork},
      {"CURL_HOME", false, kNetwork},
      {"WGETRC", false, kNetwork},
      {"NPM_CONFIG_*", true, kPackages},
      {"PIP_*", false, kPackages},
      {"EDITOR", false, kHelpers},
      {"VISUAL", false, kHelpers},
      {"PAGER", false, kHelpers},
      {"MANPAGER", false, kHelpers},
      {"BROWSER", false, kHelpers},
      {"LESSOPEN", false, kHelpers},
      {"LESSCLOSE", false, kHelpers},
      {"SSH_ASKPASS*", false, kHelpers},
      {"SUDO_ASKPASS", false, kHelpers},
      {"XDG_*", false, kPlaces},
      {"TMPDIR", false, kPlaces},
      {"TMP", false, kPlaces},
      {"TEMP", false, kPlaces},
  };
  return kPatterns;
}

std::optional<std::string_view> protectedEnvClass(std::string_view name) {
  if (std::find(std::begin(kSettableExceptions), std::end(kSettableExceptions), name) !=
      std::end(kSettableExceptions))
    return std::nullopt;
  const std::string text(name);
  for (const auto& pattern : protectedEnvPatterns()) {
    const std::string glob(pattern.glob);
    if (::fnmatch(glob.c_str(), text.c_str(), pattern.any_case ? FNM_CASEFOLD : 0) == 0)
      return pattern.what;
  }
  return std::nullopt;
}

}  // namespace abx::plugins::system
