#include "server/policy_sources.h"

#include <cstdlib>
#include <filesystem>

#include "policy/policy_engine.h"

namespace abx::kernel {

sdk::Result<PolicySources> readPolicySources(const ServerConfig& config) {
  PolicySources out;
  const char* inline_json = std::getenv("ABX_SERVER_POLICY");
  const char* file = std::getenv("ABX_SERVER_POLICY_FILE");
  if (config.policy_file || config.preset) {
    out.origin = "--policy";
    if (config.policy_file) {
      auto doc = loadPolicyFile(*config.policy_file);
      if (!doc) return doc.status();
      out.policy = std::move(doc).value();
    }
  } else if (inline_json && *inline_json) {
    out.origin = "ABX_SERVER_POLICY";
    auto doc = parsePolicy(inline_json, "env:ABX_SERVER_POLICY");
    if (!doc) return doc.status();
    out.policy = std::move(doc).value();
  } else if (file && *file) {
    out.origin = "ABX_SERVER_POLICY_FILE";
    auto doc = loadPolicyFile(file);
    if (!doc) return doc.status();
    out.policy = std::move(doc).value();
  } else if (!config.system_policy_file.empty() &&
             std::filesystem::exists(config.system_policy_file)) {
    out.origin = config.system_policy_file;
    auto doc = loadPolicyFile(config.system_policy_file);
    if (!doc) return doc.status();
    out.policy = std::move(doc).value();
  }
  std::optional<std::string> preset = config.preset;
  if (!preset && out.policy && out.policy->preset) preset = out.policy->preset;
  if (preset && *preset != "default") {
    if (config.preset_dir.empty())
      return sdk::Status::error("preset '" + *preset + "': no presets directory found",
                                "ConfigError");
    auto doc = loadPreset(config.preset_dir, *preset);
    if (!doc) return doc.status();
    out.preset = std::move(doc).value();
  } else if (preset) {
    // "default" adds nothing to the default layer; name it for discovery only.
    PolicyDocument empty;
    empty.source = "preset:default";
    out.preset = std::move(empty);
  }
  return out;
}

std::vector<std::string> tokenEnvNames(const PolicySources& sources) {
  std::vector<std::string> names;
  for (const auto* doc : {&sources.preset, &sources.policy})
    if (*doc)
      for (const auto& token : (*doc)->tokens)
        if (token.token_env) names.push_back(*token.token_env);
  return names;
}

}  // namespace abx::kernel
