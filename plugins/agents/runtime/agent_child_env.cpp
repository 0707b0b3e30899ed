#include "agent_child_env.h"

#include <algorithm>
#include <array>
#include <map>

namespace abx::plugins::agents {

bool isAllowlistedEnvName(std::string_view name) {
  static constexpr std::array<std::string_view, 20> kNames = {"PATH",
                                                              "HOME",
                                                              "USER",
                                                              "LOGNAME",
                                                              "SHELL",
                                                              "LANG",
                                                              "TERM",
                                                              "TMPDIR",
                                                              "TZ",
                                                              "SSL_CERT_FILE",
                                                              "SSL_CERT_DIR",
                                                              "REQUESTS_CA_BUNDLE",
                                                              "NODE_EXTRA_CA_CERTS",
                                                              "HTTP_PROXY",
                                                              "HTTPS_PROXY",
                                                              "NO_PROXY",
                                                              "http_proxy",
                                                              "https_proxy",
                                                              "no_proxy",
                                                              "LANGUAGE"};
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  return name.starts_with("LC_") || name.starts_with("NPM_CONFIG_") ||
         name.starts_with("npm_config_");
}

std::vector<std::string> buildAgentEnv(const AgentEnvParts& parts) {
  std::map<std::string, std::string> env;
  for (const auto& entry : parts.base) {
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    // The server's own variables never pass, not even when listed.
    if (name.starts_with("ABX_")) continue;
    const bool passed = std::find(parts.passthrough.begin(), parts.passthrough.end(), name) !=
                        parts.passthrough.end();
    if (isAllowlistedEnvName(name) || passed) env[name] = entry.substr(eq + 1);
  }
  for (const auto* list :
       {&parts.credentials, &parts.definition_env, &parts.secrets, &parts.invocation})
    for (const auto& [name, value] : *list) env[name] = value;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (auto& [name, value] : env)
    if (!parts.is_protected || !parts.is_protected(name)) out.push_back(name + "=" + value);
  return out;
}

}  // namespace abx::plugins::agents
