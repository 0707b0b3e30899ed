// The pure half of the workspace bootstrap (workspace_bootstrap.h): how a
// git URL is split so no credential reaches argv or .git/config, and the
// argv and environment of the git children. The hardening follows the
// dev_tools plugin's git environment (a plugin cannot include another's
// headers): no system or global configuration, no prompt, nothing git would
// run as a program but the transport itself.
#include <algorithm>
#include <cctype>

#include "abx/sdk/text_codecs.h"
#include "agent_child_env.h"
#include "workspace_bootstrap.h"

namespace abx::plugins::agents {
namespace {

bool isHttpScheme(std::string_view scheme) { return scheme == "https" || scheme == "http"; }

}  // namespace

GitRemote splitGitRemote(std::string_view url) {
  GitRemote remote;
  remote.url = std::string(url);
  const auto sep = url.find("://");
  if (sep == std::string_view::npos) return remote;  // scp-like user@host:path has no password
  const auto scheme = url.substr(0, sep);
  const auto rest = url.substr(sep + 3);
  const auto authority = rest.substr(0, rest.find_first_of("/?#"));
  const auto at = authority.rfind('@');
  auto host_and_path = rest;
  if (at != std::string_view::npos) {
    const auto info = authority.substr(0, at);
    host_and_path = rest.substr(at + 1);
    const auto colon = info.find(':');
    if (isHttpScheme(scheme)) {
      // https://TOKEN@host sends TOKEN as the user name, as git would.
      remote.user = std::string(info.substr(0, colon));
      if (colon != std::string_view::npos) remote.password = std::string(info.substr(colon + 1));
      remote.has_credential = !info.empty();
      remote.url = std::string(scheme) + "://" + std::string(host_and_path);
    } else {
      // ssh://git@host keeps its user name; a password there is dropped (ssh never uses it).
      remote.url = std::string(scheme) + "://" + std::string(info.substr(0, colon)) + "@" +
                   std::string(host_and_path);
    }
  }
  if (isHttpScheme(scheme))
    remote.origin = std::string(scheme) + "://" +
                    std::string(host_and_path.substr(0, host_and_path.find_first_of("/?#"))) + "/";
  return remote;
}

bool isCommitId(std::string_view ref) {
  return (ref.size() == 40 || ref.size() == 64) && std::all_of(ref.begin(), ref.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

GitPlan gitClonePlan(const sdk::agents::GitSpec& git, const std::string& dest, int depth,
                     const std::vector<std::string>& base,
                     const std::function<bool(std::string_view)>& is_protected) {
  const GitRemote remote = splitGitRemote(git.url);
  // Command-scope configuration: none of it is written to .git/config.
  sdk::agents::EnvList config = {
      {"core.hooksPath", "/dev/null"},  // no hook runs, whatever a template holds
      {"core.fsmonitor", "false"},      // checkout refreshes the index: no program for it
      {"credential.helper", ""},        // an empty value clears the helper list
      {"core.askPass", ""},
      {"submodule.recurse", "false"},
      {"advice.detachedHead", "false"},
  };
  if (!remote.origin.empty() && (!git.token.empty() || remote.has_credential)) {
    // The token with the URL's user name (x-access-token without one), else
    // the URL's own user info; scoped to the repository's origin, so a
    // redirect elsewhere does not get it.
    const std::string credential =
        git.token.empty()
            ? remote.user + ":" + remote.password
            : (remote.user.empty() ? std::string("x-access-token") : remote.user) + ":" + git.token;
    config.emplace_back("http." + remote.origin + ".extraHeader",
                        "Authorization: Basic " + sdk::base64Encode(credential));
  }
  sdk::agents::EnvList vars = {
      {"GIT_TERMINAL_PROMPT", "0"},
      {"GIT_CONFIG_NOSYSTEM", "1"},
      {"GIT_CONFIG_GLOBAL", "/dev/null"},
      {"GIT_ATTR_NOSYSTEM", "1"},
      // What the definition accepts; never file (any repository the server
      // can read) nor ext (runs a command).
      {"GIT_ALLOW_PROTOCOL", "https:ssh:git"},
      {"GIT_PROTOCOL_FROM_USER", "0"},
      {"GIT_SSH_COMMAND", "ssh -o BatchMode=yes"},
      {"LC_ALL", "C"},
      {"GIT_CONFIG_COUNT", std::to_string(config.size())},
  };
  for (std::size_t i = 0; i < config.size(); ++i) {
    vars.emplace_back("GIT_CONFIG_KEY_" + std::to_string(i), config[i].first);
    vars.emplace_back("GIT_CONFIG_VALUE_" + std::to_string(i), config[i].second);
  }
  GitPlan plan;
  // The host's protection filters what comes from its environment; the
  // hardening above is ours and always applies.
  std::vector<std::string> allowed;
  for (const auto& entry : base)
    if (!is_protected || !is_protected(std::string_view(entry).substr(0, entry.find('='))))
      allowed.push_back(entry);
  plan.env = buildAgentEnv({allowed, {}, {}, {}, {}, vars, {}});

  std::vector<std::string> shallow;
  if (depth > 0) shallow.push_back("--depth=" + std::to_string(depth));
  if (isCommitId(git.ref)) {
    plan.steps.push_back({"git", "init", "--quiet", "--", dest});
    plan.steps.push_back({"git", "-C", dest, "remote", "add", "origin", "--", remote.url});
    auto fetch = std::vector<std::string>{"git", "-C", dest, "fetch"};
    fetch.insert(fetch.end(), shallow.begin(), shallow.end());
    fetch.insert(fetch.end(), {"origin", git.ref});
    plan.steps.push_back(std::move(fetch));
    plan.steps.push_back({"git", "-C", dest, "checkout", "--quiet", "--detach", "FETCH_HEAD"});
  } else {
    auto clone = std::vector<std::string>{"git", "clone"};
    clone.insert(clone.end(), shallow.begin(), shallow.end());
    clone.push_back("--single-branch");
    if (!git.ref.empty()) clone.push_back("--branch=" + git.ref);
    clone.insert(clone.end(), {"--", remote.url, dest});
    plan.steps.push_back(std::move(clone));
  }
  for (const auto& step : plan.steps) {
    if (!plan.display.empty()) plan.display += " && ";
    for (std::size_t i = 0; i < step.size(); ++i) plan.display += (i ? " " : "") + step[i];
  }
  return plan;
}

}  // namespace abx::plugins::agents
