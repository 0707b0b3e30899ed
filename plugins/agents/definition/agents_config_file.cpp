#include "definition/agents_config_file.h"

#include <fstream>
#include <set>
#include <sstream>

namespace abx::plugins::agents {

std::string AgentsConfigResult::errorText() const {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += "; ";
    out += e.text();
  }
  return source.empty() ? out : source + ": " + out;
}

AgentsConfigResult parseAgentsConfig(std::string_view text, ConfigFormat format,
                                     std::string_view source, const EnvLookup& env,
                                     const RuntimePredicate& known_runtime) {
  AgentsConfigResult result;
  result.source = std::string(source);
  auto tree = format == ConfigFormat::json ? configFromJson(text) : configFromYaml(text);
  if (!tree) {
    result.errors.push_back({"", tree.status().message()});
    return result;
  }
  DefinitionOptions options;
  options.expand_placeholders = true;
  options.env = env;
  options.known_runtime = known_runtime;

  const ConfigValue* list =
      tree->kind == ConfigValue::Kind::object ? tree->find("agents") : nullptr;
  if (list == nullptr) {
    auto one = parseAgentDefinition(*tree, options);
    if (!one.ok()) {
      result.errors = std::move(one.errors);
      return result;
    }
    if (!one.credential_refs.empty())
      result.credential_refs[one.spec.name] = std::move(one.credential_refs);
    if (one.git_depth != 1) result.git_depths[one.spec.name] = one.git_depth;
    result.agents.push_back(std::move(one.spec));
    return result;
  }
  for (const auto& [key, value] : tree->members)
    if (key != "agents") result.errors.push_back({key, "unknown key (next to 'agents')"});
  if (list->kind != ConfigValue::Kind::array) {
    result.errors.push_back({"agents", "must be an array of definitions (got " +
                                           std::string(kindName(list->kind)) + ")"});
    return result;
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->items.size(); ++i) {
    const std::string prefix = "agents[" + std::to_string(i) + "]";
    auto entry = parseAgentDefinition(list->items[i], options, prefix);
    if (!entry.ok()) {
      for (auto& e : entry.errors) result.errors.push_back(std::move(e));
      continue;
    }
    if (!names.insert(entry.spec.name).second) {
      result.errors.push_back({prefix + ".name", "duplicate agent name '" + entry.spec.name + "'"});
      continue;
    }
    if (!entry.credential_refs.empty())
      result.credential_refs[entry.spec.name] = std::move(entry.credential_refs);
    if (entry.git_depth != 1) result.git_depths[entry.spec.name] = entry.git_depth;
    result.agents.push_back(std::move(entry.spec));
  }
  if (!result.ok()) {
    result.agents.clear();
    result.credential_refs.clear();
    result.git_depths.clear();
  }
  return result;
}

AgentsConfigResult loadAgentsConfigFile(const std::string& path, const EnvLookup& env,
                                        const RuntimePredicate& known_runtime) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    AgentsConfigResult result;
    result.source = path;
    result.errors.push_back({"", "cannot read the file"});
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return parseAgentsConfig(text.str(), is_json ? ConfigFormat::json : ConfigFormat::yaml, path, env,
                           known_runtime);
}

}  // namespace abx::plugins::agents
