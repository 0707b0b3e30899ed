// plugins_fuzz sub-target: the agents plugin's definition readers (an HTTP
// definition body as JSON; the agents config file as YAML or JSON).
//
// Input: a mode byte, then the text.
//   even mode: a definition body (POST /v1/agents…). A body accepted once is
//     accepted again after the server's own re-serialisation (the state
//     file: configFromJson, then writeConfigValue), with the same public
//     view; the state file's secret sealing (takeSecretLeaves, then
//     putSecretLeaf of every leaf) gives the tree back; the public view is
//     JSON and holds no secret value of the definition.
//   odd mode: an agents config file (YAML for mode & 2, else JSON), with
//     ${VAR} expanded from a fixed environment. Checked: no exception, an
//     error names the file, accepted agents have unique non-empty names.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/json.h"
#include "definition/agent_definition.h"
#include "definition/agents_config_file.h"
#include "definition/config_tree.h"
#include "definition/public_view.h"
#include "fuzz_check.h"
#include "secrets/secret_bag.h"
#include "state/secret_leaves.h"

namespace abx::fuzz {
namespace {

using namespace plugins::agents;

std::string written(const ConfigValue& tree) {
  sdk::JsonWriter w;
  writeConfigValue(w, tree);
  return w.take();
}

std::size_t occurrences(std::string_view text, std::string_view piece) {
  std::size_t count = 0;
  for (auto at = text.find(piece); at != text.npos; at = text.find(piece, at + 1)) ++count;
  return count;
}

// Every string value of @p json, not its member names: the view always
// spells its own field names ("instructions"), which a short secret may match.
void stringValues(const sdk::Json& json, std::vector<std::string>& out) {
  if (json.kind() == sdk::JsonKind::string) out.emplace_back(json.stringView());
  if (json.kind() == sdk::JsonKind::array)
    for (std::size_t i = 0; i < json.size(); ++i) stringValues(json.at(i), out);
  if (json.kind() == sdk::JsonKind::object)
    for (const auto& [key, value] : json.members()) stringValues(value, out);
}

void definitionBody(std::string_view text) {
  auto first = parseAgentDefinitionBody(text);
  if (!first.ok()) return;
  auto tree = configFromJson(text);
  check(tree.isOk(), "an accepted body is a config tree", text);
  const std::string stored = written(*tree);
  auto second = parseAgentDefinitionBody(stored);
  check(second.ok(), "a stored definition reads back", stored);
  const std::string view = publicDefinitionJson(first.spec, first.credential_refs);
  check(publicDefinitionJson(second.spec, second.credential_refs) == view,
        "a stored definition has the same public view", stored);
  const auto parsed_view = sdk::Json::parse(view);
  check(parsed_view.isOk(), "the public view is JSON", text);
  std::vector<std::string> values;
  stringValues(*parsed_view, values);

  const auto secrets = SecretBag::of(first.spec).values();
  // A secret the body also spells outside its own field (inside a field
  // name such as "instructions", or in a base URL) cannot be kept out of
  // the view by hiding that field, so only one the body spells once counts.
  for (const auto& secret : secrets) {
    if (secret.size() < 4 || occurrences(text, secret) > 1) continue;
    for (const auto& value : values)
      check(value.find(secret) == std::string::npos, "the public view holds no secret", text);
  }
  ConfigValue sealed = *tree;
  const auto leaves = takeSecretLeaves(sealed, secrets);
  for (const auto& leaf : leaves)
    check(putSecretLeaf(sealed, leaf.pointer, leaf.value), "a sealed leaf has its place", text);
  check(written(sealed) == stored, "sealing and unsealing gives the tree back", text);
}

void configFile(std::string_view text, bool yaml) {
  const EnvLookup env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "HOME") return std::string("/home/fuzz");
    if (name == "KEY") return std::string("sk-fuzz-0123456789");
    return std::nullopt;
  };
  auto result =
      parseAgentsConfig(text, yaml ? ConfigFormat::yaml : ConfigFormat::json, "agents.fuzz", env);
  if (!result.ok()) {
    check(result.errorText().starts_with("agents.fuzz"), "an error names the file", text);
    return;
  }
  std::set<std::string> names;
  for (const auto& agent : result.agents)
    check(!agent.name.empty() && names.insert(agent.name).second, "unique agent names", text);
}

}  // namespace

void fuzzAgentDefinitions(std::string_view data) {
  if (data.empty()) return;
  const auto mode = static_cast<unsigned char>(data[0]);
  if (mode % 2 == 0)
    definitionBody(data.substr(1));
  else
    configFile(data.substr(1), (mode & 2) != 0);
}

}  // namespace abx::fuzz
