// PolicyEngine tests, table-driven, over a route table built from the
// endpoint ids of DESIGN.md: the precedence of selectors and layers (exact >
// glob > group: > @defaults; default < code < preset < policy < env; a single
// enabled:false inside one document layer and one specificity; the last
// toggle per group in the code layer) with the rule each winner reports;
// per-field merging; core that cannot be disabled; validation and
// did-you-mean; every shipped preset, and the "*" glob that keeps locked and
// transfer-only closed; the token forms and the Authenticator built from
// them; every PolicyAdmission error body and the order of its limits; and
// decide() / decisionJson / endpointPolicyJson.
#include "policy/policy_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/policy_decision.h"
#include "pipeline/admission.h"
#include "pipeline/pipeline.h"
#include "policy/authenticator.h"
#include "policy/policy_document.h"
#include "routing/route_table.h"
#include "support/api_error.h"

namespace {

using abx::kernel::ApiError;
using abx::kernel::Authenticator;
using abx::kernel::CodeToggle;
using abx::kernel::CompiledPolicy;
using abx::kernel::compilePolicy;
using abx::kernel::decide;
using abx::kernel::decisionJson;
using abx::kernel::DefaultAdmission;
using abx::kernel::Dispatch;
using abx::kernel::endpointPolicyJson;
using abx::kernel::GroupRecord;
using abx::kernel::loadPreset;
using abx::kernel::parsePathOp;
using abx::kernel::parsePolicy;
using abx::kernel::PolicyAdmission;
using abx::kernel::PolicyDocument;
using abx::kernel::PolicyInputs;
using abx::kernel::presetNames;
using abx::kernel::renderError;
using abx::kernel::Route;
using abx::kernel::RouteTable;
using abx::kernel::sha256Digest;
using abx::kernel::TokenSpec;
using abx::kernel::Verdict;
using abx::sdk::AuditLevel;
using abx::sdk::EndpointPolicy;
using abx::sdk::Identity;
using abx::sdk::PathOp;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

using Compiled = std::shared_ptr<const CompiledPolicy>;
using Strings = std::vector<std::string>;

// ---- the route table ------------------------------------------------------

struct EndpointDef {
  const char* id;
  const char* group;
  Strings scopes;
};

/** DESIGN.md's ids and default scopes (a subset of each group). */
const std::vector<EndpointDef>& endpointDefs() {
  static const std::vector<EndpointDef> kDefs = {
      {"health", "core", {}},
      {"ready", "core", {}},
      {"capabilities", "core", {}},
      {"capabilities_check", "core", {}},
      {"download", "file_ops", {"files:read"}},
      {"upload", "file_ops", {"files:write"}},
      {"files_list", "file_ops", {"files:read"}},
      {"files_stat", "file_ops", {"files:read"}},
      {"files_mkdir", "file_ops", {"files:write"}},
      {"files_delete", "file_ops", {"files:delete"}},
      {"files_move", "file_ops", {"files:write", "files:delete"}},
      {"files_search", "file_ops", {"files:read"}},
      {"files_upload_stream", "file_ops", {"files:write"}},
      {"files_download_stream", "file_ops", {"files:read"}},
      {"files_archive", "file_ops", {"files:read"}},
      {"shell", "process", {"process:run"}},
      {"shell_stream", "process", {"process:run"}},
      {"process_start", "process", {"process:run"}},
      {"process_list", "process", {"process:manage"}},
      {"process_signal", "process", {"process:manage"}},
      {"system_info", "system", {"system:read"}},
      {"env_get", "system", {"system:read"}},
      {"env_set", "system", {"system:write"}},
      {"pty_create", "terminal", {"terminal:use"}},
      {"commands_list", "commands", {"commands:run"}},
      {"commands_run", "commands", {"commands:run"}},
      {"code_run", "dev_tools", {"devtools:run"}},
      {"browser_navigate", "browser", {"browser:use"}},
  };
  return kDefs;
}

// The parameters the real plugins declare for these groups.
std::vector<abx::sdk::ParamSpec> paramsOf(const std::string& group) {
  using abx::sdk::ParamType;
  auto list = [](const char* key) { return abx::sdk::ParamSpec{key, ParamType::string_list, ""}; };
  auto flag = [](const char* key) { return abx::sdk::ParamSpec{key, ParamType::boolean, ""}; };
  if (group == "file_ops")
    return {flag("overwrite"), list("allow_extensions"), list("deny_extensions")};
  if (group == "process")
    return {list("allow_commands"),
            list("deny_commands"),
            list("shells"),
            list("env_deny"),
            {"allowed_signals", ParamType::integer_list, "", std::nullopt, 1, 64}};
  if (group == "terminal") return {list("shells"), list("env_deny")};
  if (group == "system") return {list("env_deny"), list("allow_vars"), list("deny_vars")};
  if (group == "dev_tools") return {list("languages")};
  if (group == "browser")
    return {list("url_allow"), list("url_deny"), flag("block_private_networks")};
  return {};
}

struct World {
  RouteTable routes;
  std::vector<GroupRecord> groups;
};

const World& world() {
  static const World instance = [] {
    World w;
    for (const auto& def : endpointDefs()) {
      abx::sdk::RouteSpec spec;
      spec.method = "POST";
      spec.path = std::string("/t/") + def.id;
      spec.endpoint = def.id;
      spec.group = def.group;
      spec.scopes = def.scopes;
      spec.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
      auto status = w.routes.add(std::move(spec), def.group);
      if (!status) std::fprintf(stderr, "route %s: %s\n", def.id, status.message().c_str());
    }
    for (auto [name, opt_in] : {std::pair{"core", false},
                                {"commands", false},
                                {"file_ops", false},
                                {"process", false},
                                {"terminal", false},
                                {"system", false},
                                {"dev_tools", true},
                                {"browser", true}})
      w.groups.push_back({{name, opt_in, "", paramsOf(name)}, name});
    return w;
  }();
  return instance;
}

const Route& route(const std::string& id) {
  const Route* r = world().routes.findEndpoint(id);
  if (!r) throw std::runtime_error("no route " + id);
  return *r;
}

const char* groupOf(const std::string& id) {
  for (const auto& def : endpointDefs())
    if (def.id == id) return def.group;
  return "";
}

// ---- compiling ------------------------------------------------------------

std::optional<std::string> fakeEnv(const std::string& name) {
  static const std::map<std::string, std::string> kEnv = {{"CI_TOKEN", "ci-secret"},
                                                          {"OPS_TOKEN", "ops-secret"},
                                                          {"SAME_AS_CI", "ci-secret"},
                                                          {"EMPTY_TOKEN", ""}};
  auto it = kEnv.find(name);
  if (it == kEnv.end()) return std::nullopt;
  return it->second;
}

std::optional<abx::kernel::TokenDigest> fakeTokenDigest(const std::string& name) {
  auto value = fakeEnv(name);
  if (!value || value->empty()) return std::nullopt;
  return sha256Digest(*value);
}

/** The inputs of one compile; YAML documents are parsed here. */
struct Layers {
  std::vector<CodeToggle> code;
  std::optional<std::string> preset; /**< YAML, source "preset:mine" */
  std::optional<std::string> policy; /**< YAML, source "file:test" */
  Strings env;
  std::optional<std::string> legacy;
  bool strict = false;

  Layers withCode(std::vector<CodeToggle> toggles) const {
    Layers l = *this;
    l.code = std::move(toggles);
    return l;
  }
  Layers withPreset(std::string yaml) const {
    Layers l = *this;
    l.preset = std::move(yaml);
    return l;
  }
  Layers withPolicy(std::string yaml) const {
    Layers l = *this;
    l.policy = std::move(yaml);
    return l;
  }
  Layers withEnv(Strings groups) const {
    Layers l = *this;
    l.env = std::move(groups);
    return l;
  }
  Layers withLegacy(std::optional<std::string> token) const {
    Layers l = *this;
    l.legacy = std::move(token);
    return l;
  }
  Layers withStrict(bool on) const {
    Layers l = *this;
    l.strict = on;
    return l;
  }
};

Layers withCode(std::vector<CodeToggle> toggles) { return Layers{}.withCode(std::move(toggles)); }
Layers withPreset(std::string yaml) { return Layers{}.withPreset(std::move(yaml)); }
Layers withPolicy(std::string yaml) { return Layers{}.withPolicy(std::move(yaml)); }
Layers withEnv(Strings groups) { return Layers{}.withEnv(std::move(groups)); }

abx::sdk::Result<Compiled> compile(const Layers& layers) {
  PolicyInputs in;
  in.routes = &world().routes;
  in.groups = world().groups;
  in.code = layers.code;
  in.env_groups = layers.env;
  if (layers.legacy && !layers.legacy->empty()) in.legacy_token = sha256Digest(*layers.legacy);
  in.token_digest = &fakeTokenDigest;
  in.strict = layers.strict;
  if (layers.preset) {
    auto doc = parsePolicy(*layers.preset, "preset:mine");
    if (!doc) return doc.status();
    in.preset = std::move(doc).value();
  }
  if (layers.policy) {
    auto doc = parsePolicy(*layers.policy, "file:test");
    if (!doc) return doc.status();
    in.policy = std::move(doc).value();
  }
  return compilePolicy(in, 7);
}

Compiled mustCompile(const Layers& layers) {
  auto result = compile(layers);
  EXPECT_TRUE(result.isOk()) << result.status().message();
  return result.isOk() ? result.value() : std::make_shared<const CompiledPolicy>();
}

/** The ConfigError message of compiling @p layers, "" when it compiles. */
std::string compileError(const Layers& layers) {
  auto result = compile(layers);
  if (result.isOk()) return "";
  EXPECT_EQ(result.status().type(), "ConfigError") << result.status().message();
  return result.status().message();
}

const EndpointPolicy& policyOf(const CompiledPolicy& compiled, const std::string& id) {
  return compiled.endpoints.at(route(id).index);
}

/** "on <rule>" or "off <rule>". */
std::string stateOf(const CompiledPolicy& compiled, const std::string& id) {
  const auto& p = policyOf(compiled, id);
  return (p.enabled ? "on " : "off ") + p.rule;
}

// ---- 1. precedence --------------------------------------------------------

constexpr const char* kEnvRule = "env:ABX_SERVER_ENABLED_GROUPS";

struct PrecedenceCase {
  const char* name;
  Layers layers;
  const char* endpoint;
  std::string expected;  // stateOf()
};

const std::vector<PrecedenceCase>& precedenceCases() {
  static const std::vector<PrecedenceCase> kCases = {
      // The default layer alone, and the rule each of its selectors reports.
      {"default: a plain group", {}, "download", "on default:file_ops"},
      {"default: another group", {}, "shell", "on default:process"},
      {"default: opt-in dev_tools", {}, "code_run", "off default:opt-in:dev_tools"},
      {"default: opt-in browser", {}, "browser_navigate", "off default:opt-in:browser"},
      {"default: core", {}, "health", "on default:core"},
      {"default: an empty policy changes nothing", withPolicy("{}"), "download",
       "on default:file_ops"},

      // Specificity inside the policy layer: exact > glob > group: > @defaults.
      {"exact(on) beats glob(off)",
       withPolicy("endpoints: {shell: {enabled: true}, 'sh*': {enabled: false}}"), "shell",
       "on policy:endpoints.shell"},
      {"exact(off) beats glob(on)",
       withPolicy("endpoints: {'sh*': {enabled: true}, shell: {enabled: false}}"), "shell",
       "off policy:endpoints.shell"},
      {"the glob decides where no exact id matches",
       withPolicy("endpoints: {'sh*': {enabled: true}, shell: {enabled: false}}"), "shell_stream",
       "on policy:endpoints.sh*"},
      {"exact beats groups:",
       withPolicy("groups: {process: false}\nendpoints: {shell: {enabled: true}}"), "shell",
       "on policy:endpoints.shell"},
      {"groups: decides the rest of the group",
       withPolicy("groups: {process: false}\nendpoints: {shell: {enabled: true}}"), "process_list",
       "off policy:groups.process"},
      {"exact beats group: selector",
       withPolicy("endpoints: {'group:process': {enabled: true}, shell: {enabled: false}}"),
       "shell", "off policy:endpoints.shell"},
      {"exact beats defaults:",
       withPolicy("defaults: {enabled: false}\nendpoints: {shell: {enabled: true}}"), "shell",
       "on policy:endpoints.shell"},
      {"exact beats @defaults",
       withPolicy("endpoints: {'@defaults': {enabled: true}, shell: {enabled: false}}"), "shell",
       "off policy:endpoints.shell"},
      {"glob beats groups:",
       withPolicy("groups: {process: false}\nendpoints: {'process_*': {enabled: true}}"),
       "process_list", "on policy:endpoints.process_*"},
      {"glob does not reach non-matching ids",
       withPolicy("groups: {process: false}\nendpoints: {'process_*': {enabled: true}}"), "shell",
       "off policy:groups.process"},
      {"glob(off) beats group: selector(on)",
       withPolicy("endpoints: {'group:file_ops': {enabled: true}, 'files_*': {enabled: false}}"),
       "files_list", "off policy:endpoints.files_*"},
      {"group: selector decides the rest",
       withPolicy("endpoints: {'group:file_ops': {enabled: true}, 'files_*': {enabled: false}}"),
       "download", "on policy:endpoints.group:file_ops"},
      {"glob beats defaults:",
       withPolicy("defaults: {enabled: false}\nendpoints: {'files_*': {enabled: true}}"),
       "files_list", "on policy:endpoints.files_*"},
      {"defaults: decides the rest",
       withPolicy("defaults: {enabled: false}\nendpoints: {'files_*': {enabled: true}}"),
       "download", "off policy:defaults"},
      {"glob beats @defaults",
       withPolicy("endpoints: {'@defaults': {enabled: true}, '*_stream': {enabled: false}}"),
       "shell_stream", "off policy:endpoints.*_stream"},
      {"groups: beats defaults:", withPolicy("defaults: {enabled: false}\ngroups: {system: true}"),
       "system_info", "on policy:groups.system"},
      {"defaults: decides outside the group",
       withPolicy("defaults: {enabled: false}\ngroups: {system: true}"), "shell",
       "off policy:defaults"},
      {"group: selector beats @defaults",
       withPolicy("endpoints: {'@defaults': {enabled: true}, 'group:system': {enabled: false}}"),
       "env_get", "off policy:endpoints.group:system"},
      {"defaults: and @defaults are one level (false wins)",
       withPolicy("defaults: {enabled: true}\nendpoints: {'@defaults': {enabled: false}}"),
       "download", "off policy:endpoints.@defaults"},
      {"defaults: and @defaults are one level (false wins, reversed)",
       withPolicy("defaults: {enabled: false}\nendpoints: {'@defaults': {enabled: true}}"),
       "download", "off policy:defaults"},
      {"groups: and group: are one level (false wins)",
       withPolicy("groups: {process: true}\nendpoints: {'group:process': {enabled: false}}"),
       "shell", "off policy:endpoints.group:process"},
      {"groups: and group: are one level (false wins, reversed)",
       withPolicy("groups: {process: false}\nendpoints: {'group:process': {enabled: true}}"),
       "shell", "off policy:groups.process"},

      // The more specific selector wins whatever its layer.
      {"preset exact beats policy glob",
       withPreset("endpoints: {shell: {enabled: false}}")
           .withPolicy("endpoints: {'sh*': {enabled: true}}"),
       "shell", "off preset:mine"},
      {"preset glob beats policy groups:",
       withPreset("endpoints: {'process_*': {enabled: false}}")
           .withPolicy("groups: {process: true}"),
       "process_list", "off preset:mine"},
      {"preset groups: beats policy defaults:",
       withPreset("groups: {system: false}").withPolicy("defaults: {enabled: true}"), "system_info",
       "off preset:mine"},
      {"the default opt-in group beats policy defaults:", withPolicy("defaults: {enabled: true}"),
       "code_run", "off default:opt-in:dev_tools"},
      {"a code group beats policy defaults:",
       withCode({{"process", false, "p"}}).withPolicy("defaults: {enabled: true}"), "shell",
       "off code:disable_group:process"},
      {"env group loses to a policy exact enabled:false",
       withPolicy("endpoints: {code_run: {enabled: false}}").withEnv({"dev_tools"}), "code_run",
       "off policy:endpoints.code_run"},
      {"env group loses to a policy glob enabled:false",
       withPolicy("endpoints: {'browser_*': {enabled: false}}").withEnv({"browser"}),
       "browser_navigate", "off policy:endpoints.browser_*"},
      {"env group beats policy defaults:",
       withPolicy("defaults: {enabled: false}").withEnv({"process"}), "shell",
       std::string("on ") + kEnvRule},
      {"env group beats preset defaults:",
       withPreset("defaults: {enabled: false}").withEnv({"system"}), "env_get",
       std::string("on ") + kEnvRule},

      // Equal specificity: the later layer wins, for every adjacent pair.
      {"default < code (group)", withCode({{"dev_tools", true, "p"}}), "code_run",
       "on code:enable_group:dev_tools"},
      {"code disable_group", withCode({{"file_ops", false, "p"}}), "download",
       "off code:disable_group:file_ops"},
      {"default < preset (group)", withPreset("groups: {browser: true}"), "browser_navigate",
       "on preset:mine"},
      {"default < preset (@defaults)", withPreset("defaults: {enabled: false}"), "download",
       "off preset:mine"},
      {"default < policy (group)", withPolicy("groups: {dev_tools: true}"), "code_run",
       "on policy:groups.dev_tools"},
      {"default < policy (@defaults)", withPolicy("defaults: {enabled: false}"), "download",
       "off policy:defaults"},
      {"default < env (group)", withEnv({"browser"}), "browser_navigate",
       std::string("on ") + kEnvRule},
      {"code < preset (group off)",
       withCode({{"dev_tools", true, "p"}}).withPreset("groups: {dev_tools: false}"), "code_run",
       "off preset:mine"},
      {"code < preset (group on)",
       withCode({{"process", false, "p"}}).withPreset("groups: {process: true}"), "shell",
       "on preset:mine"},
      {"code < policy (group)",
       withCode({{"process", false, "p"}}).withPolicy("groups: {process: true}"), "shell",
       "on policy:groups.process"},
      {"code < env (group)", withCode({{"process", false, "p"}}).withEnv({"process"}), "shell",
       std::string("on ") + kEnvRule},
      {"preset < policy (exact on)",
       withPreset("endpoints: {shell: {enabled: false}}")
           .withPolicy("endpoints: {shell: {enabled: true}}"),
       "shell", "on policy:endpoints.shell"},
      {"preset < policy (exact off)",
       withPreset("endpoints: {shell: {enabled: true}}")
           .withPolicy("endpoints: {shell: {enabled: false}}"),
       "shell", "off policy:endpoints.shell"},
      {"preset < policy (glob)",
       withPreset("endpoints: {'sh*': {enabled: false}}")
           .withPolicy("endpoints: {'sh*': {enabled: true}}"),
       "shell", "on policy:endpoints.sh*"},
      {"preset < policy (groups:)",
       withPreset("groups: {process: false}").withPolicy("groups: {process: true}"), "shell",
       "on policy:groups.process"},
      {"preset < policy (group: selector)",
       withPreset("groups: {process: false}")
           .withPolicy("endpoints: {'group:process': {enabled: true}}"),
       "shell", "on policy:endpoints.group:process"},
      {"preset < policy (defaults:)",
       withPreset("defaults: {enabled: false}").withPolicy("defaults: {enabled: true}"), "download",
       "on policy:defaults"},
      {"preset < policy (@defaults off)",
       withPreset("defaults: {enabled: true}")
           .withPolicy("endpoints: {'@defaults': {enabled: false}}"),
       "download", "off policy:endpoints.@defaults"},
      {"policy < env (groups:)", withPolicy("groups: {process: false}").withEnv({"process"}),
       "shell", std::string("on ") + kEnvRule},
      {"policy < env (group: selector)",
       withPolicy("endpoints: {'group:process': {enabled: false}}").withEnv({"process"}),
       "process_list", std::string("on ") + kEnvRule},
      {"preset < env (group)", withPreset("groups: {browser: false}").withEnv({"browser"}),
       "browser_navigate", std::string("on ") + kEnvRule},

      // Inside one document layer and one specificity a single enabled:false wins.
      {"two policy globs, true first",
       withPolicy("endpoints: {'shell*': {enabled: true}, '*_stream': {enabled: false}}"),
       "shell_stream", "off policy:endpoints.*_stream"},
      {"two policy globs, false first",
       withPolicy("endpoints: {'*_stream': {enabled: false}, 'shell*': {enabled: true}}"),
       "shell_stream", "off policy:endpoints.*_stream"},
      {"the glob matching alone decides",
       withPolicy("endpoints: {'*_stream': {enabled: false}, 'shell*': {enabled: true}}"), "shell",
       "on policy:endpoints.shell*"},
      {"two preset globs",
       withPreset("endpoints: {'shell*': {enabled: true}, '*_stream': {enabled: false}}"),
       "shell_stream", "off preset:mine"},
      {"globs in different layers: the later layer wins, not the false",
       withPreset("endpoints: {'*_stream': {enabled: false}}")
           .withPolicy("endpoints: {'shell*': {enabled: true}}"),
       "shell_stream", "on policy:endpoints.shell*"},

      // A selector that does not set `enabled` does not decide it.
      {"an exact rule without enabled",
       withPolicy("groups: {process: false}\nendpoints: {shell: {limits: {max_bytes: 1}}}"),
       "shell", "off policy:groups.process"},
      {"a glob without enabled", withPolicy("endpoints: {'sh*': {audit: all}}"), "shell",
       "on default:process"},

      // Core stays on whatever a glob or @defaults says.
      {"core under policy defaults: false", withPolicy("defaults: {enabled: false}"), "health",
       "on default:core"},
      {"core under a '*' glob false", withPolicy("endpoints: {'*': {enabled: false}}"),
       "capabilities", "on default:core"},
      {"the '*' glob turns the rest off", withPolicy("endpoints: {'*': {enabled: false}}"),
       "download", "off policy:endpoints.*"},
      {"core under @defaults false", withPolicy("endpoints: {'@defaults': {enabled: false}}"),
       "capabilities_check", "on default:core"},
      {"core under preset defaults: false", withPreset("defaults: {enabled: false}"), "ready",
       "on default:core"},
      {"core under a glob matching it", withPolicy("endpoints: {'capabilit*': {enabled: false}}"),
       "capabilities", "on default:core"},
  };
  return kCases;
}

TEST(PolicyPrecedence, Table) {
  for (const auto& c : precedenceCases()) {
    SCOPED_TRACE(c.name);
    auto compiled = mustCompile(c.layers);
    if (compiled->endpoints.empty()) continue;
    EXPECT_EQ(stateOf(*compiled, c.endpoint), c.expected);
  }
}

TEST(PolicyPrecedence, EnvTurnsOnEveryEndpointOfTheGroup) {
  auto compiled = mustCompile(withPolicy("groups: {process: false}").withEnv({"process"}));
  for (const char* id :
       {"shell", "shell_stream", "process_start", "process_list", "process_signal"})
    EXPECT_EQ(stateOf(*compiled, id), std::string("on ") + kEnvRule) << id;
  EXPECT_EQ(stateOf(*compiled, "download"), "on default:file_ops");
}

TEST(PolicyPrecedence, CodeToggleForCoreOrAnUnknownGroupIsAnError) {
  EXPECT_FALSE(compileError(withCode({{"core", false, "p"}})).empty());
  EXPECT_FALSE(compileError(withCode({{"no_such_group", true, "p"}})).empty());
  // Enabling core is harmless.
  auto compiled = mustCompile(withCode({{"core", true, "p"}}));
  EXPECT_EQ(stateOf(*compiled, "health"), "on default:core");
}

TEST(PolicyPrecedence, CodeLayerLastToggleForAGroupWins) {
  // enableGroup/disableGroup edit the code layer: for one group the last
  // call is in force, whichever way round (not "a single false wins").
  struct Case {
    const char* name;
    std::vector<CodeToggle> code;
    const char* endpoint;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"enable then disable",
       {{"process", true, "p"}, {"process", false, "p"}},
       "shell",
       "off code:disable_group:process"},
      {"disable then enable",
       {{"process", false, "p"}, {"process", true, "p"}},
       "shell",
       "on code:enable_group:process"},
      {"opt-in: enable then disable",
       {{"dev_tools", true, "p"}, {"dev_tools", false, "p"}},
       "code_run",
       "off code:disable_group:dev_tools"},
      {"opt-in: disable then enable",
       {{"dev_tools", false, "p"}, {"dev_tools", true, "p"}},
       "code_run",
       "on code:enable_group:dev_tools"},
      {"two plugins: the later call wins",
       {{"file_ops", false, "a"}, {"file_ops", true, "b"}},
       "download",
       "on code:enable_group:file_ops"},
      {"two plugins, reversed",
       {{"file_ops", true, "a"}, {"file_ops", false, "b"}},
       "download",
       "off code:disable_group:file_ops"},
      {"three calls",
       {{"system", false, "p"}, {"system", true, "p"}, {"system", false, "p"}},
       "env_get",
       "off code:disable_group:system"},
      {"other groups' calls in between",
       {{"process", false, "p"}, {"file_ops", false, "p"}, {"process", true, "p"}},
       "shell",
       "on code:enable_group:process"},
      {"...do not change theirs",
       {{"process", false, "p"}, {"file_ops", false, "p"}, {"process", true, "p"}},
       "download",
       "off code:disable_group:file_ops"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto compiled = mustCompile(withCode(c.code));
    if (compiled->endpoints.empty()) continue;
    EXPECT_EQ(stateOf(*compiled, c.endpoint), c.expected);
  }
  // The later layers still beat whatever the code layer ended with.
  auto preset = mustCompile(withCode({{"process", false, "p"}, {"process", true, "p"}})
                                .withPreset("groups: {process: false}"));
  EXPECT_EQ(stateOf(*preset, "shell"), "off preset:mine");
  // Disabling core is refused when it is the call in force.
  EXPECT_FALSE(compileError(withCode({{"core", true, "p"}, {"core", false, "p"}})).empty());
}

// ---- 1b. per-field merging -----------------------------------------------

TEST(PolicyFields, EachFieldFromTheMostSpecificSelectorThatSetsIt) {
  auto compiled = mustCompile(withPolicy(R"(
defaults:
  scopes: ["d:scope"]
  limits: {timeout_seconds: 30, max_bytes: 1KB, rate_per_minute: 100}
  paths: {deny: ["**/.git/**"]}
  params: {overwrite: false}
  audit: all
endpoints:
  group:file_ops:
    limits: {max_entries: 50, max_bytes: 2KB}
    paths: {symlinks: deny}
  files_*:
    limits: {max_bytes: 3KB}
    paths: {allow: [/srv/data]}
    params: {deny_extensions: [.sh]}
  files_list:
    scopes: ["x:list"]
    limits: {max_bytes: 4KB}
    audit: "off"
)"));
  const auto& list = policyOf(*compiled, "files_list");
  EXPECT_EQ(list.rule, "default:file_ops");  // no selector set `enabled`
  EXPECT_EQ(list.scopes, Strings{"x:list"});
  EXPECT_EQ(list.limits.max_bytes, 4000u);                            // exact
  EXPECT_EQ(list.limits.max_entries, 50u);                            // group:
  EXPECT_EQ(list.limits.timeout_seconds, 30.0);                       // defaults
  EXPECT_EQ(list.limits.rate_per_minute, 100u);                       // defaults
  EXPECT_EQ(list.paths.allow, Strings{"/srv/data"});                  // glob
  EXPECT_EQ(list.paths.deny, Strings{"**/.git/**"});                  // defaults
  EXPECT_EQ(list.paths.symlinks, "deny");                             // group:
  EXPECT_EQ(list.params.boolean("overwrite"), false);                 // defaults
  EXPECT_EQ(list.params.strings("deny_extensions"), Strings{".sh"});  // glob
  EXPECT_EQ(list.audit, AuditLevel::off);                             // exact

  const auto& stat = policyOf(*compiled, "files_stat");
  EXPECT_EQ(stat.scopes, Strings{"d:scope"});
  EXPECT_EQ(stat.limits.max_bytes, 3000u);
  EXPECT_EQ(stat.limits.max_entries, 50u);
  EXPECT_EQ(stat.paths.allow, Strings{"/srv/data"});
  EXPECT_EQ(stat.audit, AuditLevel::all);

  const auto& download = policyOf(*compiled, "download");
  EXPECT_EQ(download.limits.max_bytes, 2000u);
  EXPECT_THAT(download.paths.allow, IsEmpty());
  EXPECT_EQ(download.paths.symlinks, "deny");
  EXPECT_EQ(download.params.strings("deny_extensions"), std::nullopt);

  const auto& shell = policyOf(*compiled, "shell");
  EXPECT_EQ(shell.scopes, Strings{"d:scope"});
  EXPECT_EQ(shell.limits.max_bytes, 1000u);
  EXPECT_EQ(shell.limits.max_entries, std::nullopt);
  EXPECT_EQ(shell.limits.max_concurrency, std::nullopt);
  EXPECT_EQ(shell.paths.symlinks, "follow");

  // Core keeps its own scopes; its other fields merge like any endpoint's.
  const auto& health = policyOf(*compiled, "health");
  EXPECT_THAT(health.scopes, IsEmpty());
  EXPECT_EQ(health.limits.max_bytes, 1000u);
  EXPECT_EQ(health.audit, AuditLevel::all);
}

TEST(PolicyFields, DefaultsWithOnlyTimeoutAndExactWithOnlyMaxBytes) {
  auto compiled =
      mustCompile(withPolicy("defaults: {limits: {timeout_seconds: 30}}\n"
                             "endpoints: {download: {limits: {max_bytes: 5MB}}}"));
  const auto& download = policyOf(*compiled, "download");
  EXPECT_EQ(download.limits.timeout_seconds, 30.0);
  EXPECT_EQ(download.limits.max_bytes, 5000000u);
  const auto& list = policyOf(*compiled, "files_list");
  EXPECT_EQ(list.limits.timeout_seconds, 30.0);
  EXPECT_EQ(list.limits.max_bytes, std::nullopt);
}

TEST(PolicyFields, AcrossLayers) {
  auto compiled = mustCompile(
      withPreset("defaults: {limits: {max_bytes: 1MB}, params: {allow_commands: [ls]}}\n"
                 "endpoints: {download: {limits: {max_bytes: 2MB}, scopes: ['p:scope']}}")
          .withPolicy("defaults: {limits: {max_bytes: 3MB}}\n"
                      "endpoints: {upload: {limits: {max_bytes: 4MB}}}")
          .withEnv({"process"}));
  // A preset exact rule is more specific than a policy default.
  EXPECT_EQ(policyOf(*compiled, "download").limits.max_bytes, 2000000u);
  EXPECT_EQ(policyOf(*compiled, "download").scopes, Strings{"p:scope"});
  EXPECT_EQ(policyOf(*compiled, "upload").limits.max_bytes, 4000000u);
  // At equal specificity the policy beats the preset...
  EXPECT_EQ(policyOf(*compiled, "files_list").limits.max_bytes, 3000000u);
  // ...only for the fields it sets.
  EXPECT_EQ(policyOf(*compiled, "shell").params.strings("allow_commands"), Strings{"ls"});
  // A parameter reaches only the endpoints of the groups that declare it.
  EXPECT_EQ(policyOf(*compiled, "files_list").params.find("allow_commands"), nullptr);
  EXPECT_EQ(policyOf(*compiled, "files_list").scopes, Strings{"files:read"});
  // The env layer decides `enabled` and nothing else.
  EXPECT_EQ(policyOf(*compiled, "shell").limits.max_bytes, 3000000u);
  EXPECT_EQ(policyOf(*compiled, "shell").scopes, Strings{"process:run"});
}

TEST(PolicyFields, TwoGlobsOfOneLayerSettingOneField) {
  // Equal layer and specificity: the later selector of the document wins.
  auto a =
      mustCompile(withPolicy("endpoints: {'files_*': {limits: {max_bytes: 1}}, "
                             "'*_list': {limits: {max_bytes: 2}}}"));
  EXPECT_EQ(policyOf(*a, "files_list").limits.max_bytes, 2u);
  auto b =
      mustCompile(withPolicy("endpoints: {'*_list': {limits: {max_bytes: 2}}, "
                             "'files_*': {limits: {max_bytes: 1}}}"));
  EXPECT_EQ(policyOf(*b, "files_list").limits.max_bytes, 1u);
}

TEST(PolicyFields, RouteScopesWhenNoRuleSetsThem) {
  auto compiled = mustCompile({});
  for (const auto& def : endpointDefs())
    EXPECT_EQ(policyOf(*compiled, def.id).scopes, def.scopes) << def.id;
  EXPECT_EQ(compiled->preset, "default");
  EXPECT_EQ(compiled->revision, 7u);
  EXPECT_THAT(compiled->identities, IsEmpty());
  EXPECT_THAT(compiled->warnings, IsEmpty());
}

// ---- 2. core --------------------------------------------------------------

TEST(PolicyCore, CannotBeDisabled) {
  struct Case {
    Layers layers;
    const char* error;
  };
  const std::vector<Case> cases = {
      {withPolicy("groups: {core: false}"), "file:test: groups: core cannot be disabled"},
      {withPolicy("endpoints: {health: {enabled: false}}"),
       "file:test: endpoints.health: core cannot be disabled"},
      {withPolicy("endpoints: {capabilities_check: {enabled: false}}"),
       "file:test: endpoints.capabilities_check: core cannot be disabled"},
      {withPolicy("endpoints: {'group:core': {enabled: false}}"),
       "file:test: endpoints.group:core: core cannot be disabled"},
      {withPreset("groups: {core: false}"), "preset:mine: groups: core cannot be disabled"},
      {withPreset("endpoints: {ready: {enabled: false}}"),
       "preset:mine: endpoints.ready: core cannot be disabled"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.error);
    EXPECT_EQ(compileError(c.layers), c.error);
  }
  // Turning core on, or writing other keys for it, is fine.
  auto compiled =
      mustCompile(withPolicy("groups: {core: true}\n"
                             "endpoints: {health: {enabled: true, audit: all}}"));
  EXPECT_EQ(stateOf(*compiled, "health"), "on default:core");
  EXPECT_EQ(policyOf(*compiled, "health").audit, AuditLevel::all);
}

TEST(PolicyCore, ScopesStayTheRoutes) {
  auto compiled =
      mustCompile(withPolicy("endpoints:\n"
                             "  '*': {scopes: [admin]}\n"
                             "  'group:core': {scopes: [admin]}\n"
                             "  health: {scopes: [admin]}\n"
                             "defaults: {scopes: [admin]}"));
  for (const char* id : {"health", "ready", "capabilities", "capabilities_check"})
    EXPECT_THAT(policyOf(*compiled, id).scopes, IsEmpty()) << id;
  EXPECT_EQ(policyOf(*compiled, "download").scopes, Strings{"admin"});
  PolicyAdmission admission(world().routes, compiled);
  Identity reader{"reader", {"files:read"}};
  EXPECT_FALSE(admission.admit(route("capabilities"), reader).error.has_value());
  EXPECT_TRUE(admission.admit(route("download"), reader).error.has_value());
}

// ---- 3. validation --------------------------------------------------------

TEST(PolicyValidation, ParamsAreTheDeclaringGroupsKeysAndTypes) {
  struct Case {
    const char* policy;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"endpoints: {upload: {params: {overwrit: true}}}",
       "file:test: endpoints.upload.params: unknown key 'overwrit' (did you mean 'overwrite'?)"},
      {"endpoints: {shell: {params: {overwrite: false}}}",
       "file:test: endpoints.shell.params: unknown key 'overwrite'"},
      {"endpoints: {'group:commands': {params: {shells: [sh]}}}",
       "file:test: endpoints.group:commands.params: unknown key 'shells' (the groups it applies "
       "to declare no parameters)"},
      {"defaults: {params: {url_alow: [x]}}",
       "file:test: defaults.params: unknown key 'url_alow' (did you mean 'url_allow'?)"},
      {"endpoints: {upload: {params: {overwrite: yes please}}}",
       "file:test: endpoints.upload.params.overwrite: expected true or false, got 'yes please'"},
      {"endpoints: {code_run: {params: {languages: {a: 1}}}}",
       "file:test: endpoints.code_run.params.languages: expected a list of strings, got a "
       "mapping"},
      {"endpoints: {shell: {params: {allowed_signals: [2, TERM]}}}",
       "file:test: endpoints.shell.params.allowed_signals[1]: expected an integer, got 'TERM'"},
      {"endpoints: {shell: {params: {allowed_signals: [0]}}}",
       "file:test: endpoints.shell.params.allowed_signals[0]: must be between 1 and 64, got '0'"},
      {"endpoints: {shell: {params: {allowed_signals: 9}}}",
       "file:test: endpoints.shell.params.allowed_signals: expected a list of integers, got '9'"},
      {"endpoints: {'pty_*': {params: {shells: /bin/sh}}}",
       "file:test: endpoints.pty_*.params.shells: expected a list of strings, got '/bin/sh'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.policy);
    EXPECT_EQ(compileError(withPolicy(c.policy)), c.error);
  }
  // A preset may name keys of groups this server does not have.
  auto compiled = mustCompile(withPreset("defaults: {params: {no_such_key: 1}}"));
  EXPECT_TRUE(policyOf(*compiled, "download").params.empty());
}

TEST(PolicyValidation, DeclaredDefaultsApplyWhenNoLayerSetsTheKey) {
  World w;
  abx::sdk::RouteSpec spec;
  spec.method = "GET";
  spec.path = "/x";
  spec.endpoint = "x_get";
  spec.group = "x";
  spec.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  ASSERT_TRUE(w.routes.add(std::move(spec), "x"));
  abx::sdk::ParamSpec depth{"depth", abx::sdk::ParamType::integer, "", std::int64_t{3}, 1, 9};
  w.groups.push_back({{"x", false, "", {depth}}, "x"});
  abx::kernel::PolicyInputs in;
  in.routes = &w.routes;
  in.groups = w.groups;
  auto plain = compilePolicy(in, 1);
  ASSERT_TRUE(plain);
  EXPECT_EQ((*plain)->endpoints.at(0).params.integer("depth"), 3);
  auto doc = parsePolicy("endpoints: {x_get: {params: {depth: 7}}}", "file:test");
  ASSERT_TRUE(doc);
  in.policy = *doc;
  auto set = compilePolicy(in, 2);
  ASSERT_TRUE(set);
  EXPECT_EQ((*set)->endpoints.at(0).params.integer("depth"), 7);
  in.policy = *parsePolicy("endpoints: {x_get: {params: {depth: 10}}}", "file:test");
  auto bad = compilePolicy(in, 3);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(),
            "file:test: endpoints.x_get.params.depth: must be between 1 and 9, got '10'");
}

TEST(PolicyValidation, UnknownIdsAndGroupsInThePolicyLayer) {
  struct Case {
    const char* policy;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"endpoints: {shel: {enabled: false}}",
       "file:test: endpoints: unknown endpoint 'shel' (did you mean 'shell'?)"},
      {"endpoints: {files_lst: {limits: {max_bytes: 1}}}",
       "file:test: endpoints: unknown endpoint 'files_lst' (did you mean 'files_list'?)"},
      {"endpoints: {xyzzy_plugh: {}}", "file:test: endpoints: unknown endpoint 'xyzzy_plugh'"},
      {"groups: {proces: false}",
       "file:test: groups: unknown group 'proces' (did you mean 'process'?)"},
      {"groups: {terminals: true}",
       "file:test: groups: unknown group 'terminals' (did you mean 'terminal'?)"},
      {"endpoints: {'group:brwser': {enabled: true}}",
       "file:test: endpoints: unknown group 'brwser' (did you mean 'browser'?)"},
      {"endpoints: {'group:xyzzy': {enabled: true}}",
       "file:test: endpoints: unknown group 'xyzzy'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.policy);
    EXPECT_EQ(compileError(withPolicy(c.policy)), c.error);
  }
}

TEST(PolicyValidation, ThePresetLayerToleratesUnknownIdsAndGroups) {
  auto compiled = mustCompile(
      withPreset("groups: {agents: false}\n"
                 "endpoints: {process_stdin: {enabled: false}, 'group:agents': {enabled: false}, "
                 "'nothing_*': {enabled: false}}")
          .withStrict(true));
  EXPECT_THAT(compiled->warnings, IsEmpty());
  EXPECT_EQ(stateOf(*compiled, "shell"), "on default:process");
}

TEST(PolicyValidation, AGlobMatchingNothingWarnsOrFailsWhenStrict) {
  const std::string policy = "endpoints: {'nothing_*': {enabled: false}, 'files_*': {}}";
  auto compiled = mustCompile(withPolicy(policy));
  EXPECT_THAT(compiled->warnings,
              ElementsAre("file:test: endpoints: 'nothing_*' matches no endpoint"));
  EXPECT_EQ(compileError(withPolicy(policy).withStrict(true)),
            "file:test: endpoints: 'nothing_*' matches no endpoint");
  // A glob that matches is fine, strict or not.
  auto ok = mustCompile(withPolicy("endpoints: {'files_*': {}}").withStrict(true));
  EXPECT_THAT(ok->warnings, IsEmpty());
}

// ---- 4. the shipped presets -----------------------------------------------

Compiled compilePreset(const std::string& name, const std::optional<std::string>& policy = {},
                       const Strings& env = {}, const std::vector<CodeToggle>& code = {}) {
  auto doc = loadPreset(ABX_SOURCE_DIR "/config/presets", name);
  EXPECT_TRUE(doc.isOk()) << doc.status().message();
  if (!doc) return std::make_shared<const CompiledPolicy>();
  PolicyInputs in;
  in.routes = &world().routes;
  in.groups = world().groups;
  in.preset = std::move(doc).value();
  in.env_groups = env;
  in.code = code;
  in.strict = true;
  if (policy) {
    auto parsed = parsePolicy(*policy, "file:test");
    EXPECT_TRUE(parsed.isOk()) << parsed.status().message();
    in.policy = std::move(parsed).value();
  }
  auto result = compilePolicy(in, 1);
  EXPECT_TRUE(result.isOk()) << result.status().message();
  return result.isOk() ? result.value() : std::make_shared<const CompiledPolicy>();
}

std::string defaultRule(const std::string& id) {
  std::string group = groupOf(id);
  if (group == "dev_tools" || group == "browser") return "default:opt-in:" + group;
  return "default:" + group;
}

/** Every non-core id except @p except. */
Strings allBut(const Strings& except) {
  Strings out;
  for (const auto& def : endpointDefs())
    if (std::string(def.group) != "core" &&
        std::find(except.begin(), except.end(), def.id) == except.end())
      out.push_back(def.id);
  return out;
}

struct PresetCase {
  const char* name;
  Strings enabled; /**< non-core endpoints that answer */
  Strings decided; /**< endpoints whose rule is preset:<name> */
};

TEST(PolicyPresets, EveryPresetEnablesExactlyItsEndpoints) {
  const Strings kOptIn = {"code_run", "browser_navigate"};
  // transfer-only and locked disable with a "*" glob, which is more specific
  // than the default layer's opt-in group: selectors, so they decide every
  // non-core endpoint, the opt-in ones included.
  const std::vector<PresetCase> cases = {
      {"default", allBut(kOptIn), {}},
      {"transfer-only",
       {"download", "upload", "files_list", "files_stat", "files_mkdir", "files_upload_stream",
        "files_download_stream"},
       allBut({})},
      {"read-only",
       {"download", "files_list", "files_stat", "files_search", "files_download_stream",
        "files_archive", "process_list", "system_info", "env_get", "commands_list"},
       {"upload", "files_mkdir", "files_delete", "files_move", "files_upload_stream", "shell",
        "shell_stream", "process_start", "process_signal", "env_set", "pty_create", "commands_run",
        "code_run", "browser_navigate"}},
      {"hardened",
       {"download", "upload", "files_list", "files_stat", "files_mkdir", "files_delete",
        "files_move", "files_search", "files_upload_stream", "files_download_stream",
        "files_archive", "system_info", "env_get", "commands_list", "commands_run"},
       {"shell", "shell_stream", "process_start", "process_list", "process_signal", "env_set",
        "pty_create", "code_run", "browser_navigate"}},
      {"locked", {}, allBut({})},
  };
  ASSERT_EQ(cases.size(), presetNames().size());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto compiled = compilePreset(c.name);
    if (compiled->endpoints.empty()) continue;
    EXPECT_EQ(compiled->preset, c.name);
    EXPECT_THAT(compiled->sources, ElementsAre(std::string("preset:") + c.name));
    EXPECT_THAT(compiled->warnings, IsEmpty());
    std::map<std::string, std::string> expected, actual;
    for (const auto& def : endpointDefs()) {
      const std::string id = def.id;
      bool core = std::string(def.group) == "core";
      bool on = core || std::find(c.enabled.begin(), c.enabled.end(), id) != c.enabled.end();
      bool decided = std::find(c.decided.begin(), c.decided.end(), id) != c.decided.end();
      std::string rule = core      ? "default:core"
                         : decided ? std::string("preset:") + c.name
                                   : defaultRule(id);
      expected[id] = (on ? "on " : "off ") + rule;
      actual[id] = stateOf(*compiled, id);
    }
    EXPECT_EQ(actual, expected);
  }
}

TEST(PolicyPresets, HardenedLimitsAndParams) {
  auto compiled = compilePreset("hardened");
  if (compiled->endpoints.empty()) return;
  const Strings kDeny = {"**/.git/**", "**/.ssh/**", "**/.env"};
  for (const char* id : {"download", "files_upload_stream", "system_info", "health"}) {
    SCOPED_TRACE(id);
    const auto& p = policyOf(*compiled, id);
    EXPECT_EQ(p.limits.max_request_bytes, 10u << 20);
    EXPECT_EQ(p.limits.rate_per_minute, 600u);
    EXPECT_EQ(p.limits.max_concurrency, 16u);
    EXPECT_EQ(p.limits.timeout_seconds, 60.0);
    EXPECT_EQ(p.paths.deny, kDeny);
    EXPECT_EQ(p.paths.symlinks, "deny");
    EXPECT_EQ(p.audit, AuditLevel::all);
  }
  // Each group gets the parameters it declares.
  EXPECT_EQ(policyOf(*compiled, "download").params.boolean("overwrite"), false);
  EXPECT_EQ(policyOf(*compiled, "browser_navigate").params.boolean("block_private_networks"), true);
  EXPECT_TRUE(policyOf(*compiled, "system_info").params.empty());
  EXPECT_TRUE(policyOf(*compiled, "health").params.empty());
  EXPECT_EQ(policyOf(*compiled, "download").limits.max_bytes, std::nullopt);
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "files_upload_stream")),
            R"({"scopes":["files:write"],)"
            R"("limits":{"max_bytes":104857600,"max_request_bytes":10485760,)"
            R"("timeout_seconds":60,"rate_per_minute":600,"max_concurrency":16},)"
            R"("paths":{"allow":[],"deny":["**/.git/**","**/.ssh/**","**/.env"],)"
            R"("read_only":[],"symlinks":"deny"},)"
            R"("params":{"overwrite":false},"audit":"all"})");
}

TEST(PolicyPresets, ReadOnlyForbidsOverwriteEverywhere) {
  auto compiled = compilePreset("read-only");
  for (const auto& def : endpointDefs())
    EXPECT_EQ(policyOf(*compiled, def.id).params.boolean("overwrite"),
              std::string(def.group) == "file_ops" ? std::optional<bool>(false) : std::nullopt)
        << def.id;
  EXPECT_EQ(policyOf(*compiled, "download").paths.symlinks, "follow");
}

TEST(PolicyPresets, DocumentedRefinements) {
  // docs/presets.md: locked + one exact id opened by a policy file.
  auto locked = compilePreset(
      "locked",
      "endpoints: {files_download_stream: {enabled: true, paths: {allow: [/home/user/out]}}}");
  EXPECT_EQ(stateOf(*locked, "files_download_stream"), "on policy:endpoints.files_download_stream");
  EXPECT_EQ(policyOf(*locked, "files_download_stream").paths.allow, Strings{"/home/user/out"});
  EXPECT_EQ(stateOf(*locked, "download"), "off preset:locked");
  EXPECT_THAT(locked->sources, ElementsAre("preset:locked", "file:test"));
  // docs/presets.md: read-only + groups {dev_tools: true}: code_run stays off.
  auto read_only = compilePreset("read-only", "groups: {dev_tools: true}");
  EXPECT_EQ(stateOf(*read_only, "code_run"), "off preset:read-only");
  // docs/presets.md: an exact id in the policy beats the preset's exact rule.
  auto upload = compilePreset("read-only", "endpoints: {upload: {enabled: true}}");
  EXPECT_EQ(stateOf(*upload, "upload"), "on policy:endpoints.upload");
  // locked's "*" glob is more specific than the environment's group:, so
  // ABX_SERVER_ENABLED_GROUPS cannot reopen a group under it.
  auto env = compilePreset("locked", std::nullopt, {"browser"});
  EXPECT_EQ(stateOf(*env, "browser_navigate"), "off preset:locked");
  EXPECT_EQ(stateOf(*env, "download"), "off preset:locked");
  // Nor can groups: in a policy file (docs/presets.md, the glob trick)...
  auto groups = compilePreset("locked", "groups: {browser: true, file_ops: true}");
  EXPECT_EQ(stateOf(*groups, "browser_navigate"), "off preset:locked");
  EXPECT_EQ(stateOf(*groups, "download"), "off preset:locked");
  // ...but an exact id in a policy file still opens it, and so does a policy
  // glob (same specificity, later layer).
  auto opened = compilePreset("locked", "endpoints: {browser_navigate: {enabled: true}}");
  EXPECT_EQ(stateOf(*opened, "browser_navigate"), "on policy:endpoints.browser_navigate");
  auto glob = compilePreset("locked", "endpoints: {'files_*': {enabled: true}}");
  EXPECT_EQ(stateOf(*glob, "files_list"), "on policy:endpoints.files_*");
  EXPECT_EQ(stateOf(*glob, "download"), "off preset:locked");
}

/** id -> stateOf, for every endpoint. */
std::map<std::string, std::string> statesOf(const CompiledPolicy& compiled) {
  std::map<std::string, std::string> out;
  for (const auto& def : endpointDefs()) out[def.id] = stateOf(compiled, def.id);
  return out;
}

TEST(PolicyPresets, LockedAndTransferOnlyStayLockedWhateverGroupsCodeOrEnvTurnOn) {
  // A "*" glob is more specific than any group: selector, so neither a
  // plugin's enableGroup (code layer) nor ABX_SERVER_ENABLED_GROUPS (env
  // layer) turns a group back on; the preset's exact ids and core still win.
  for (const char* name : {"locked", "transfer-only"}) {
    SCOPED_TRACE(name);
    auto bare = compilePreset(name);
    if (bare->endpoints.empty()) continue;
    const auto expected = statesOf(*bare);
    const std::string kPresetRule = std::string("preset:") + name;
    for (const auto& g : world().groups) {
      const std::string group = g.spec.name;
      SCOPED_TRACE(group);
      auto code = compilePreset(name, std::nullopt, {}, {{group, true, "p"}});
      EXPECT_EQ(statesOf(*code), expected) << "enableGroup(" << group << ")";
      auto env = compilePreset(name, std::nullopt, {group});
      EXPECT_EQ(statesOf(*env), expected) << "ABX_SERVER_ENABLED_GROUPS=" << group;
      auto both = compilePreset(name, std::nullopt, {group}, {{group, true, "p"}});
      EXPECT_EQ(statesOf(*both), expected) << "both, " << group;
    }
    // Spelled out for a plain group, an opt-in group and the transfer group.
    auto all = compilePreset(name, std::nullopt, {"process", "dev_tools", "file_ops"},
                             {{"process", true, "p"}, {"dev_tools", true, "p"}});
    EXPECT_EQ(stateOf(*all, "shell"), "off " + kPresetRule);
    EXPECT_EQ(stateOf(*all, "code_run"), "off " + kPresetRule);
    EXPECT_EQ(stateOf(*all, "files_delete"), "off " + kPresetRule);
    EXPECT_EQ(stateOf(*all, "download"),
              (std::string(name) == "locked" ? "off " : "on ") + kPresetRule);
    EXPECT_EQ(stateOf(*all, "health"), "on default:core");
  }
  // The contrast: a preset that disables through defaults: is reopened.
  auto defaults = mustCompile(withPreset("defaults: {enabled: false}")
                                  .withCode({{"process", true, "p"}})
                                  .withEnv({"system"}));
  EXPECT_EQ(stateOf(*defaults, "shell"), "on code:enable_group:process");
  EXPECT_EQ(stateOf(*defaults, "env_get"), std::string("on ") + kEnvRule);
  EXPECT_EQ(stateOf(*defaults, "download"), "off preset:mine");
}

TEST(PolicyPresets, UnknownPresetName) {
  struct Case {
    const char* name;
    const char* error;
  };
  const std::vector<Case> cases = {
      {"hardend",
       "unknown preset 'hardend' (did you mean 'hardened'?); presets: default, transfer-only, "
       "read-only, hardened, locked"},
      {"readonly",
       "unknown preset 'readonly' (did you mean 'read-only'?); presets: default, transfer-only, "
       "read-only, hardened, locked"},
      {"nonsense",
       "unknown preset 'nonsense'; presets: default, transfer-only, read-only, hardened, "
       "locked"},
  };
  for (const auto& c : cases) {
    auto doc = loadPreset(ABX_SOURCE_DIR "/config/presets", c.name);
    ASSERT_FALSE(doc.isOk()) << c.name;
    EXPECT_EQ(doc.status().type(), "ConfigError");
    EXPECT_EQ(doc.status().message(), c.error);
  }
}

// ---- 5. tokens and the Authenticator --------------------------------------

std::string hexOf(const std::array<unsigned char, 32>& digest) {
  std::string out;
  char buf[3];
  for (unsigned char c : digest) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

/** "<id> <scopes...>" or "<status> <message>". */
std::string whoIs(const Authenticator& auth, std::vector<std::string_view> access,
                  std::optional<std::string_view> authorization = std::nullopt) {
  auto result = auth.authenticate(access, authorization);
  if (auto* id = std::get_if<Identity>(&result)) {
    std::string out = id->id;
    for (const auto& s : id->scopes) out += " " + s;
    return out;
  }
  const auto& e = std::get<ApiError>(result);
  return std::to_string(e.status) + " " + e.message;
}

TEST(PolicyTokens, EveryFormAuthenticates) {
  const std::string admin_hex = hexOf(sha256Digest("admin-secret"));
  std::string upper_hex = hexOf(sha256Digest("upper-secret"));
  for (auto& c : upper_hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto compiled = mustCompile(
      withPolicy("auth:\n"
                 "  tokens:\n"
                 "    - {id: ci, token_env: CI_TOKEN, scopes: ['files:read']}\n"
                 "    - {id: admin, token_sha256: '" +
                 admin_hex +
                 "', scopes: ['*']}\n"
                 "    - {id: ops, token_env: OPS_TOKEN, scopes: ['process:run', 'system:*']}\n"
                 "    - {id: upper, token_sha256: '" +
                 upper_hex + "'}\n")
          .withLegacy("legacy-secret"));
  ASSERT_EQ(compiled->identities.size(), 5u);
  EXPECT_EQ(compiled->identities[0].id, "legacy");
  EXPECT_EQ(compiled->identities[0].scopes, Strings{"*"});
  EXPECT_EQ(compiled->identities[0].digest, sha256Digest("legacy-secret"));
  EXPECT_EQ(compiled->identities[1].digest, sha256Digest("ci-secret"));
  EXPECT_EQ(compiled->identities[2].digest, sha256Digest("admin-secret"));
  EXPECT_EQ(compiled->identities[3].digest, sha256Digest("ops-secret"));
  EXPECT_EQ(compiled->identities[4].digest, sha256Digest("upper-secret"));
  EXPECT_THAT(compiled->secret_env_names, ElementsAre("CI_TOKEN", "OPS_TOKEN"));

  Authenticator auth(compiled->identities);
  ASSERT_TRUE(auth.enabled());
  struct Case {
    std::vector<std::string_view> access;
    std::optional<std::string_view> authorization;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {{"legacy-secret"}, std::nullopt, "legacy *"},
      {{"ci-secret"}, std::nullopt, "ci files:read"},
      {{"admin-secret"}, std::nullopt, "admin *"},
      {{"ops-secret"}, std::nullopt, "ops process:run system:*"},
      {{"upper-secret"}, std::nullopt, "upper"},
      {{}, "Bearer ci-secret", "ci files:read"},
      {{}, "bearer legacy-secret", "legacy *"},
      {{"admin-secret"}, "Bearer ci-secret", "admin *"},  // X-Access-Token decides
      {{"wrong"}, std::nullopt, "401 unauthorized"},
      {{"CI-SECRET"}, std::nullopt, "401 unauthorized"},
      {{"ci-secre"}, std::nullopt, "401 unauthorized"},
      {{""}, std::nullopt, "401 unauthorized"},
      {{}, "Bearer wrong", "401 unauthorized"},
      {{}, "Basic Y2ktc2VjcmV0", "401 unauthorized"},
      {{}, std::nullopt, "401 unauthorized"},
      {{"CI_TOKEN"}, std::nullopt, "401 unauthorized"},  // the variable's name is no token
      {{admin_hex}, std::nullopt, "401 unauthorized"},   // nor is the digest
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expected);
    EXPECT_EQ(whoIs(auth, c.access, c.authorization), c.expected);
  }
}

TEST(PolicyTokens, NoTokensMeansAnOpenServer) {
  for (const auto& legacy : {std::optional<std::string>(), std::optional<std::string>("")}) {
    auto compiled = mustCompile(withPolicy("auth: {tokens: []}").withLegacy(legacy));
    EXPECT_THAT(compiled->identities, IsEmpty());
    EXPECT_THAT(compiled->secret_env_names, IsEmpty());
    Authenticator auth(compiled->identities);
    EXPECT_FALSE(auth.enabled());
    EXPECT_EQ(whoIs(auth, {}), "anonymous *");
  }
}

TEST(PolicyTokens, Errors) {
  const std::string ci_hex = hexOf(sha256Digest("ci-secret"));
  struct Case {
    Layers layers;
    const char* error;
  };
  const std::vector<Case> cases = {
      {withPolicy("auth: {tokens: [{id: ci, token_env: MISSING_TOKEN}]}"),
       "file:test: auth.tokens[0] (ci): environment variable MISSING_TOKEN is not set"},
      {withPolicy("auth: {tokens: [{id: ci, token_env: CI_TOKEN}, {id: e, token_env: "
                  "EMPTY_TOKEN}]}"),
       "file:test: auth.tokens[1] (e): environment variable EMPTY_TOKEN is not set"},
      {withPolicy("auth: {tokens: [{id: ci, token_env: CI_TOKEN}, {id: ci, token_env: "
                  "OPS_TOKEN}]}"),
       "file:test: auth.tokens[1].id: duplicate token id 'ci'"},
      {withPolicy("auth: {tokens: [{id: legacy, token_env: CI_TOKEN}]}").withLegacy("x"),
       "file:test: auth.tokens[0] (legacy): duplicate identity id"},
      {withPolicy("auth: {tokens: [{id: ci, token_env: CI_TOKEN}, {id: ci2, token_env: "
                  "SAME_AS_CI}]}"),
       "file:test: auth.tokens[1] (ci2): the same token as identity 'ci'"},
      {withPolicy("auth: {tokens: [{id: ci, token_env: CI_TOKEN}, {id: admin, token_sha256: '" +
                  ci_hex + "'}]}"),
       "file:test: auth.tokens[1] (admin): the same token as identity 'ci'"},
      {withPolicy("auth: {tokens: [{id: ci, token_env: CI_TOKEN}]}").withLegacy("ci-secret"),
       "file:test: auth.tokens[0] (ci): the same token as identity 'legacy'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.error);
    EXPECT_EQ(compileError(c.layers), c.error);
  }
}

TEST(PolicyTokens, DuplicateIdsInAHandBuiltDocument) {
  // parsePolicy rejects duplicate ids; compilePolicy checks again.
  PolicyDocument doc;
  doc.source = "env:ABX_SERVER_POLICY";
  doc.tokens.push_back(TokenSpec{"a", "CI_TOKEN", std::nullopt, {}});
  doc.tokens.push_back(TokenSpec{"a", "OPS_TOKEN", std::nullopt, {}});
  PolicyInputs in;
  in.routes = &world().routes;
  in.groups = world().groups;
  in.token_digest = &fakeTokenDigest;
  in.policy = doc;
  auto result = compilePolicy(in, 1);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().type(), "ConfigError");
  EXPECT_EQ(result.status().message(),
            "env:ABX_SERVER_POLICY: auth.tokens[1] (a): duplicate identity id");
}

// ---- 6. admission error bodies --------------------------------------------

/** "<status> <body>[ Retry-After: n]" as renderError writes it, "ok" when admitted. */
std::string rendered(const Verdict& verdict, std::string_view path = "/t/x") {
  if (!verdict.error) return "ok";
  auto response = renderError(path, *verdict.error);
  std::string out = std::to_string(response.status) + " " + response.body;
  for (const auto& [name, value] : response.headers) out += " " + name + ": " + value;
  return out;
}

Compiled admissionPolicy() {
  return mustCompile(withPolicy(R"(
endpoints:
  shell: {enabled: false}
  download: {limits: {rate_per_minute: 2}}
  upload: {limits: {max_concurrency: 1}}
  files_list: {scopes: ["admin:list"]}
)"));
}

TEST(PolicyAdmissionErrors, EnabledAndScopes) {
  PolicyAdmission admission(world().routes, admissionPolicy());
  struct Case {
    const char* endpoint;
    Strings scopes;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"shell",
       {"*"},
       R"(404 {"error":"Endpoint 'shell' is disabled","type":"PolicyError",)"
       R"("code":"endpoint_disabled","endpoint":"shell","rule":"policy:endpoints.shell"})"},
      // Disabled comes before scopes.
      {"shell",
       {"files:read"},
       R"(404 {"error":"Endpoint 'shell' is disabled","type":"PolicyError",)"
       R"("code":"endpoint_disabled","endpoint":"shell","rule":"policy:endpoints.shell"})"},
      {"code_run",
       {"*"},
       R"(404 {"error":"Endpoint 'code_run' is disabled","type":"PolicyError",)"
       R"("code":"endpoint_disabled","endpoint":"code_run","rule":"default:opt-in:dev_tools"})"},
      {"files_move",
       {"files:write"},
       R"(403 {"error":"Missing scope 'files:delete' for endpoint 'files_move'",)"
       R"("type":"PermissionError","code":"missing_scope","endpoint":"files_move",)"
       R"("scope":"files:delete"})"},
      {"files_move",
       {"files:delete"},
       R"(403 {"error":"Missing scope 'files:write' for endpoint 'files_move'",)"
       R"("type":"PermissionError","code":"missing_scope","endpoint":"files_move",)"
       R"("scope":"files:write"})"},
      {"files_move", {"files:write", "files:delete"}, "ok"},
      {"files_move", {"files:*"}, "ok"},
      // A rule's scopes replace the route's.
      {"files_list",
       {"files:read"},
       R"(403 {"error":"Missing scope 'admin:list' for endpoint 'files_list'",)"
       R"("type":"PermissionError","code":"missing_scope","endpoint":"files_list",)"
       R"("scope":"admin:list"})"},
      {"files_list", {"admin:list"}, "ok"},
      {"download",
       {"files:write"},
       R"(403 {"error":"Missing scope 'files:read' for endpoint 'download'",)"
       R"("type":"PermissionError","code":"missing_scope","endpoint":"download",)"
       R"("scope":"files:read"})"},
      {"env_set",
       {"system:read"},
       R"(403 {"error":"Missing scope 'system:write' for endpoint 'env_set'",)"
       R"("type":"PermissionError","code":"missing_scope","endpoint":"env_set",)"
       R"("scope":"system:write"})"},
      {"health", {"files:read"}, "ok"},
      {"capabilities", {}, "ok"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.endpoint) + " " + ::testing::PrintToString(c.scopes));
    Identity caller{"caller", c.scopes};
    EXPECT_EQ(rendered(admission.admit(route(c.endpoint), caller)), c.expected);
  }
  EXPECT_EQ(admission.state(route("shell")).rule, "policy:endpoints.shell");
  EXPECT_FALSE(admission.state(route("shell")).enabled);
  EXPECT_TRUE(admission.state(route("download")).enabled);
  // The /v1 routes get the OpenAI envelope.
  EXPECT_EQ(rendered(admission.admit(route("shell"), Identity{}), "/v1/responses"),
            R"(404 {"error":{"message":"Endpoint 'shell' is disabled",)"
            R"("type":"invalid_request_error","param":null,"code":"endpoint_disabled",)"
            R"("endpoint":"shell","rule":"policy:endpoints.shell"}})");
}

TEST(PolicyAdmissionErrors, RatePerMinute) {
  PolicyAdmission admission(world().routes, admissionPolicy());
  Identity reader{"reader", {"files:read"}};
  EXPECT_EQ(rendered(admission.admit(route("download"), reader)), "ok");
  EXPECT_EQ(rendered(admission.admit(route("download"), reader)), "ok");
  EXPECT_EQ(rendered(admission.admit(route("download"), reader)),
            R"(429 {"error":"Rate limit exceeded for endpoint 'download': 2 requests per minute",)"
            R"("type":"ResourceError","code":"rate_limited","endpoint":"download",)"
            R"("limit":"rate_per_minute","retry_after":30} Retry-After: 30)");
  // Buckets are per identity and per endpoint.
  EXPECT_EQ(rendered(admission.admit(route("download"), Identity{"other", {"*"}})), "ok");
  EXPECT_EQ(rendered(admission.admit(route("files_stat"), reader)), "ok");
  // A scope denial takes no token.
  Identity writer{"writer", {"files:write"}};
  EXPECT_EQ(rendered(admission.admit(route("download"), writer)).substr(0, 3), "403");
  Identity writer_reader{"writer", {"files:read"}};
  EXPECT_EQ(rendered(admission.admit(route("download"), writer_reader)), "ok");
  EXPECT_EQ(rendered(admission.admit(route("download"), writer_reader)), "ok");
}

TEST(PolicyAdmissionErrors, MaxConcurrency) {
  PolicyAdmission admission(world().routes, admissionPolicy());
  Identity writer{"writer", {"files:write"}};
  const std::string kLimited =
      R"(429 {"error":"Too many concurrent requests to endpoint 'upload': at most 1",)"
      R"("type":"ResourceError","code":"concurrency_limited","endpoint":"upload",)"
      R"("limit":"max_concurrency","retry_after":1} Retry-After: 1)";
  {
    Verdict held = admission.admit(route("upload"), writer);
    EXPECT_EQ(rendered(held), "ok");
    EXPECT_EQ(rendered(admission.admit(route("upload"), writer)), kLimited);
    // The slot is the endpoint's, whoever asks.
    EXPECT_EQ(rendered(admission.admit(route("upload"), Identity{})), kLimited);
    // Other endpoints are not affected.
    EXPECT_EQ(rendered(admission.admit(route("files_mkdir"), writer)), "ok");
    // A moved lease still holds the slot.
    Verdict moved = std::move(held);
    EXPECT_EQ(rendered(admission.admit(route("upload"), writer)), kLimited);
  }
  Verdict next = admission.admit(route("upload"), writer);
  EXPECT_EQ(rendered(next), "ok");
  next.lease = {};  // released early
  EXPECT_EQ(rendered(admission.admit(route("upload"), writer)), "ok");
  // A scope denial holds no slot.
  EXPECT_EQ(rendered(admission.admit(route("upload"), Identity{"r", {"files:read"}})).substr(0, 3),
            "403");
  EXPECT_EQ(rendered(admission.admit(route("upload"), writer)), "ok");
}

TEST(PolicyAdmissionErrors, ConcurrencyIsCheckedBeforeTheRate) {
  // max_concurrency before rate_per_minute: a call refused for concurrency
  // spends no rate token, and a call refused by the rate holds no slot.
  PolicyAdmission admission(
      world().routes,
      mustCompile(withPolicy(
          "endpoints: {files_search: {limits: {rate_per_minute: 2, max_concurrency: 1}}}")));
  Identity reader{"reader", {"files:read"}};
  const std::string kBusy =
      R"(429 {"error":"Too many concurrent requests to endpoint 'files_search': at most 1",)"
      R"("type":"ResourceError","code":"concurrency_limited","endpoint":"files_search",)"
      R"("limit":"max_concurrency","retry_after":1} Retry-After: 1)";
  const std::string kRate =
      R"(429 {"error":"Rate limit exceeded for endpoint 'files_search': 2 requests per minute",)"
      R"("type":"ResourceError","code":"rate_limited","endpoint":"files_search",)"
      R"("limit":"rate_per_minute","retry_after":30} Retry-After: 30)";
  {
    Verdict held = admission.admit(route("files_search"), reader);  // token 1 of 2
    ASSERT_EQ(rendered(held), "ok");
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(rendered(admission.admit(route("files_search"), reader)), kBusy) << i;
  }
  // The five refusals took no token: the second one is still there.
  Verdict second = admission.admit(route("files_search"), reader);
  EXPECT_EQ(rendered(second), "ok");
  second.lease = {};
  // Now the bucket is empty; the refusal holds no slot while it is alive...
  Verdict limited = admission.admit(route("files_search"), reader);
  EXPECT_EQ(rendered(limited), kRate);
  // ...so another identity (its own bucket) gets the one slot.
  Verdict other = admission.admit(route("files_search"), Identity{"other", {"*"}});
  EXPECT_EQ(rendered(other), "ok");
  EXPECT_EQ(rendered(admission.admit(route("files_search"), Identity{"third", {"*"}})), kBusy);
}

TEST(PolicyAdmissionErrors, DefaultAdmission) {
  DefaultAdmission admission(world().routes, world().groups, {"browser"});
  EXPECT_EQ(rendered(admission.admit(route("browser_navigate"), Identity{})), "ok");
  EXPECT_EQ(admission.state(route("browser_navigate")).rule, kEnvRule);
  EXPECT_EQ(
      rendered(admission.admit(route("code_run"), Identity{})),
      R"(404 {"error":"Endpoint 'code_run' is disabled","type":"PolicyError",)"
      R"("code":"endpoint_disabled","endpoint":"code_run","rule":"default:opt-in:dev_tools"})");
  auto groups = DefaultAdmission::parseEnabledGroups(" dev_tools , browser,", world().groups);
  ASSERT_TRUE(groups.isOk());
  EXPECT_THAT(groups.value(), ElementsAre("dev_tools", "browser"));
  auto bad = DefaultAdmission::parseEnabledGroups("dev_tool", world().groups);
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().message(),
            "ABX_SERVER_ENABLED_GROUPS: unknown group 'dev_tool' (did you mean 'dev_tools'?); "
            "installed groups: core, commands, file_ops, process, terminal, system, dev_tools, "
            "browser");
}

// ---- 7. policy decisions --------------------------------------------------

constexpr const char* kBase = "/nonexistent-abx-policy-test/base";

TEST(PolicyDecisions, DecideAndDecisionJson) {
  Dispatch dispatch;
  auto compiled = mustCompile(withPolicy(R"(
base_dir: /nonexistent-abx-policy-test/base
endpoints:
  shell: {enabled: false}
  download: {paths: {deny: ["**/.git/**"]}}
  upload: {paths: {read_only: [ro]}}
  files_list:
    paths: {allow: [/nonexistent-abx-policy-test/base/pub, /nonexistent-abx-policy-test/other]}
)"));
  EXPECT_EQ(compiled->base_dir, kBase);
  dispatch.admission = std::make_unique<PolicyAdmission>(world().routes, compiled);
  const std::string b = kBase;
  auto json = [](const char* endpoint, bool enabled, bool allowed, const char* rule,
                 const char* reason, int status, const char* scopes,
                 const std::optional<std::string>& path) {
    return std::string("{\"endpoint\":\"") + endpoint +
           "\",\"enabled\":" + (enabled ? "true" : "false") +
           ",\"allowed\":" + (allowed ? "true" : "false") + ",\"rule\":\"" + rule +
           "\",\"reason\":" + (reason ? std::string("\"") + reason + "\"" : "null") +
           ",\"status\":" + std::to_string(status) + ",\"scopes\":" + scopes +
           ",\"path\":" + (path ? "\"" + *path + "\"" : std::string("null")) + "}";
  };
  const char* kRead = R"(["files:read"])";
  const char* kWrite = R"(["files:write"])";
  const char* kFileOps = "default:file_ops";
  auto expect = [&](const char* endpoint, Strings scopes, std::optional<std::string> path,
                    PathOp op, const std::string& expected) {
    SCOPED_TRACE(std::string(endpoint) + " " + path.value_or("<none>"));
    Identity caller{"caller", std::move(scopes)};
    EXPECT_EQ(decisionJson(decide(dispatch, route(endpoint), caller, path, op)), expected);
  };
  expect("download", {"*"}, std::nullopt, PathOp::read,
         json("download", true, true, kFileOps, nullptr, 200, kRead, std::nullopt));
  expect("download", {"*"}, b + "/a.txt", PathOp::read,
         json("download", true, true, kFileOps, nullptr, 200, kRead, b + "/a.txt"));
  expect("download", {"files:read"}, "notes/a.txt", PathOp::read,
         json("download", true, true, kFileOps, nullptr, 200, kRead, "notes/a.txt"));
  expect("download", {"*"}, "/etc/passwd", PathOp::read,
         json("download", true, false, kFileOps, "path_not_allowed", 403, kRead, "/etc/passwd"));
  expect("download", {"*"}, b + "/../../etc/passwd", PathOp::read,
         json("download", true, false, kFileOps, "path_not_allowed", 403, kRead,
              b + "/../../etc/passwd"));
  expect(
      "download", {"*"}, b + "/src/.git/config", PathOp::read,
      json("download", true, false, kFileOps, "path_denied", 403, kRead, b + "/src/.git/config"));
  expect("download", {"*"}, "/proc/self/environ", PathOp::read,
         json("download", true, false, kFileOps, "path_denied", 403, kRead, "/proc/self/environ"));
  // An empty path is judged (invalid_path) and reported as asked: "", not null.
  expect("download", {"*"}, "", PathOp::read,
         json("download", true, false, kFileOps, "invalid_path", 400, kRead, std::string()));
  expect("upload", {"*"}, b + "/ro/x", PathOp::write,
         json("upload", true, false, kFileOps, "read_only", 403, kWrite, b + "/ro/x"));
  expect("upload", {"*"}, b + "/ro/x", PathOp::read,
         json("upload", true, true, kFileOps, nullptr, 200, kWrite, b + "/ro/x"));
  expect("upload", {"*"}, b + "/rw/x", PathOp::write,
         json("upload", true, true, kFileOps, nullptr, 200, kWrite, b + "/rw/x"));
  expect("files_delete", {"*"}, b, PathOp::remove,
         json("files_delete", true, false, kFileOps, "path_not_allowed", 403, R"(["files:delete"])",
              b));
  expect("files_delete", {"*"}, b + "/x", PathOp::remove,
         json("files_delete", true, true, kFileOps, nullptr, 200, R"(["files:delete"])", b + "/x"));
  expect("files_list", {"*"}, b + "/pub/x", PathOp::list,
         json("files_list", true, true, kFileOps, nullptr, 200, kRead, b + "/pub/x"));
  expect("files_list", {"*"}, b + "/private", PathOp::list,
         json("files_list", true, false, kFileOps, "path_not_allowed", 403, kRead, b + "/private"));
  expect("files_list", {"*"}, "/nonexistent-abx-policy-test/other/y", PathOp::list,
         json("files_list", true, true, kFileOps, nullptr, 200, kRead,
              "/nonexistent-abx-policy-test/other/y"));
  // Disabled and missing scope decide before the path is looked at.
  expect("shell", {"*"}, b + "/a", PathOp::read,
         json("shell", false, false, "policy:endpoints.shell", "endpoint_disabled", 404,
              R"(["process:run"])", std::nullopt));
  expect("code_run", {"*"}, std::nullopt, PathOp::read,
         json("code_run", false, false, "default:opt-in:dev_tools", "endpoint_disabled", 404,
              R"(["devtools:run"])", std::nullopt));
  expect("files_move", {"files:write"}, "/etc/passwd", PathOp::write,
         json("files_move", true, false, kFileOps, "missing_scope", 403,
              R"(["files:write","files:delete"])", std::nullopt));
  expect("health", {"files:read"}, std::nullopt, PathOp::read,
         json("health", true, true, "default:core", nullptr, 200, "[]", std::nullopt));
  // The literal bodies, once each way.
  EXPECT_EQ(
      decisionJson(decide(dispatch, route("download"), Identity{}, "/etc/passwd", PathOp::read)),
      R"({"endpoint":"download","enabled":true,"allowed":false,"rule":"default:file_ops",)"
      R"("reason":"path_not_allowed","status":403,"scopes":["files:read"],)"
      R"("path":"/etc/passwd"})");
  EXPECT_EQ(
      decisionJson(decide(dispatch, route("env_get"), Identity{}, std::nullopt, PathOp::read)),
      R"({"endpoint":"env_get","enabled":true,"allowed":true,"rule":"default:system",)"
      R"("reason":null,"status":200,"scopes":["system:read"],"path":null})");
  // PolicyDecision::path tells "asked for the empty path" from "asked for none".
  auto empty = decide(dispatch, route("download"), Identity{}, std::string(), PathOp::read);
  EXPECT_EQ(empty.path, std::optional<std::string>(""));
  EXPECT_EQ(decisionJson(empty),
            R"({"endpoint":"download","enabled":true,"allowed":false,"rule":"default:file_ops",)"
            R"("reason":"invalid_path","status":400,"scopes":["files:read"],"path":""})");
  EXPECT_EQ(decide(dispatch, route("download"), Identity{}, std::nullopt, PathOp::read).path,
            std::nullopt);
  // Refused before the path is looked at: no path is reported, even one asked for.
  EXPECT_EQ(decide(dispatch, route("shell"), Identity{}, std::string(), PathOp::read).path,
            std::nullopt);
}

TEST(PolicyDecisions, EndpointPolicyJson) {
  auto compiled = mustCompile(withPolicy(R"(
endpoints:
  files_upload_stream:
    scopes: ["files:write", "uploads:big"]
    paths: {allow: [/data/in], deny: ["**/*.key"], read_only: [/data/in/ro], symlinks: deny}
    limits:
      max_bytes: 20MB
      max_request_bytes: 1KiB
      max_entries: 100
      max_duration_seconds: 1.5
      max_output_bytes: 2K
      timeout_seconds: 30
      rate_per_minute: 60
      max_concurrency: 2
    params:
      deny_extensions: [.sh, .so]
      overwrite: false
      allow_extensions: [.txt]
    audit: all
  files_stat: {audit: "off", limits: {timeout_seconds: 0.25}}
  shell: {params: {allowed_signals: [2, 15], shells: [/bin/sh], deny_commands: [rm]}}
  browser_navigate: {params: {block_private_networks: true, url_allow: ["https://*.x.com"]}}
)"));
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "files_upload_stream")),
            R"({"scopes":["files:write","uploads:big"],)"
            R"("limits":{"max_bytes":20000000,"max_request_bytes":1024,"max_entries":100,)"
            R"("max_duration_seconds":1.5,"max_output_bytes":2048,"timeout_seconds":30,)"
            R"("rate_per_minute":60,"max_concurrency":2},)"
            R"("paths":{"allow":["/data/in"],"deny":["**/*.key"],"read_only":["/data/in/ro"],)"
            R"("symlinks":"deny"},)"
            // Parameters in the order their group declares them.
            R"("params":{"overwrite":false,"allow_extensions":[".txt"],)"
            R"("deny_extensions":[".sh",".so"]},"audit":"all"})");
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "shell")),
            R"({"scopes":["process:run"],"limits":{},)"
            R"("paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
            R"("params":{"deny_commands":["rm"],"shells":["/bin/sh"],"allowed_signals":[2,15]},)"
            R"("audit":"deny"})");
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "browser_navigate")),
            R"({"scopes":["browser:use"],"limits":{},)"
            R"("paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
            R"("params":{"url_allow":["https://*.x.com"],"block_private_networks":true},)"
            R"("audit":"deny"})");
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "files_stat")),
            R"({"scopes":["files:read"],"limits":{"timeout_seconds":0.25},)"
            R"("paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
            R"("params":{},"audit":"off"})");
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "download")),
            R"({"scopes":["files:read"],"limits":{},)"
            R"("paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
            R"("params":{},"audit":"deny"})");
  EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "health")),
            R"({"scopes":[],"limits":{},)"
            R"("paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
            R"("params":{},"audit":"deny"})");
}

TEST(PolicyDecisions, EndpointPolicyJsonPrintsShortestRoundTripNumbers) {
  // std::to_chars: the shortest text that reads back as the same double (no
  // "%g" rounding to six digits, no exponent where plain digits are shorter).
  struct Case {
    const char* yaml;  // the limits value
    const char* json;
  };
  const std::vector<Case> cases = {
      {"1234567", "1234567"},  // %g: 1.23457e+06
      {"0.5", "0.5"},
      {"0.25", "0.25"},
      {"0.1", "0.1"},
      {"1.5", "1.5"},
      {"60", "60"},
      {"0", "0"},
      {"86400.125", "86400.125"},  // %g: 86400.1
      {"1234567.5", "1234567.5"},  // %g: 1.23457e+06
      {"0.000001", "1e-06"},       // the exponent form is shorter here
      {"1e21", "1e+21"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    auto compiled = mustCompile(withPolicy(std::string("endpoints: {files_stat: {limits: {") +
                                           "timeout_seconds: " + c.yaml +
                                           ", max_duration_seconds: " + c.yaml + "}}}"));
    if (compiled->endpoints.empty()) continue;
    EXPECT_EQ(endpointPolicyJson(policyOf(*compiled, "files_stat")),
              std::string(R"({"scopes":["files:read"],"limits":{"max_duration_seconds":)") +
                  c.json + R"(,"timeout_seconds":)" + c.json +
                  R"(},"paths":{"allow":[],"deny":[],"read_only":[],"symlinks":"follow"},)"
                  R"("params":{},"audit":"deny"})");
  }
}

TEST(PolicyDecisions, ParsePathOp) {
  EXPECT_EQ(parsePathOp("read"), PathOp::read);
  EXPECT_EQ(parsePathOp("write"), PathOp::write);
  EXPECT_EQ(parsePathOp("remove"), PathOp::remove);
  EXPECT_EQ(parsePathOp("delete"), PathOp::remove);
  EXPECT_EQ(parsePathOp("list"), PathOp::list);
  EXPECT_EQ(parsePathOp("Read"), std::nullopt);
  EXPECT_EQ(parsePathOp(""), std::nullopt);
}

}  // namespace
