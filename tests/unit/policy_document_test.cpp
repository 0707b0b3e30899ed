// PolicyDocument tests: every document, rule, paths, limits and params key
// lands in its field; every validation error has its exact message (source,
// dotted key path, did-you-mean); YAML and JSON read the same; the `server:`
// wrapper; parseSize, selectorKind and globMatch tables; and the shipped
// presets under config/presets parse, say what docs/presets.md says and are
// quoted there verbatim.
#include "policy/policy_document.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "policy/yaml_reads.h"

namespace {

using abx::kernel::globMatch;
using abx::kernel::loadPolicyFile;
using abx::kernel::parsePolicy;
using abx::kernel::parseSize;
using abx::kernel::PolicyDocument;
using abx::kernel::RuleSpec;
using abx::kernel::selectorKind;
using abx::kernel::SelectorKind;
using abx::sdk::AuditLevel;
using abx::sdk::ParamType;
using abx::sdk::ParamValue;
using ::testing::ElementsAre;
using ::testing::Pair;

namespace {

// A raw `params:` entry read as @p type, as the compiler reads it for a
// group that declares the key that way; nullopt when the rule has no entry.
std::optional<ParamValue> param(const RuleSpec& r, const std::string& key, ParamType type) {
  for (const auto& raw : r.params)
    if (raw.key == key) return abx::kernel::yaml_reads::readParam({key, type}, raw.value, raw.path);
  return std::nullopt;
}

}  // namespace

PolicyDocument mustParse(const std::string& text, std::string source = "test") {
  auto result = parsePolicy(text, std::move(source));
  EXPECT_TRUE(result.isOk()) << text << "\n  -> " << result.status().message();
  return result.isOk() ? std::move(result).value() : PolicyDocument{};
}

/** The error message parsing @p text produces ("" when it parses). */
std::string errorOf(const std::string& text) {
  auto result = parsePolicy(text, "test");
  if (result.isOk()) return "";
  EXPECT_EQ(result.status().type(), "ConfigError");
  return result.status().message();
}

/** The rule written for endpoint `e` in `endpoints: {e: <rule>}`. */
RuleSpec ruleOf(const std::string& rule_yaml) {
  auto doc = mustParse("endpoints:\n  e: " + rule_yaml + "\n");
  if (doc.endpoints.size() != 1) {
    ADD_FAILURE() << "no rule parsed from " << rule_yaml;
    return {};
  }
  return doc.endpoints[0].second;
}

// A canonical text form of a document, to compare YAML against JSON.
template <class T>
std::string show(const std::optional<T>& v);
std::string show(const std::string& s) { return "'" + s + "'"; }
std::string show(bool b) { return b ? "true" : "false"; }
std::string show(std::uint64_t n) { return std::to_string(n); }
std::string show(std::uint32_t n) { return std::to_string(n); }
std::string show(double d) { return std::to_string(d); }
std::string show(AuditLevel a) {
  return a == AuditLevel::off ? "off" : a == AuditLevel::deny ? "deny" : "all";
}
template <class T>
std::string show(const std::vector<T>& list) {
  std::string out = "[";
  for (const auto& item : list) out += show(item) + ",";
  return out + "]";
}
template <class T>
std::string show(const std::optional<T>& v) {
  return v ? show(*v) : "-";
}
std::string show(const RuleSpec& r) {
  std::ostringstream o;
  const auto& l = r.limits;
  const auto& p = r.params;
  o << "{enabled=" << show(r.enabled) << " scopes=" << show(r.scopes) << " paths={"
    << show(r.paths.allow) << show(r.paths.deny) << show(r.paths.read_only)
    << show(r.paths.symlinks) << "} limits={" << show(l.max_bytes) << ","
    << show(l.max_request_bytes) << "," << show(l.max_entries) << ","
    << show(l.max_duration_seconds) << "," << show(l.max_output_bytes) << ","
    << show(l.timeout_seconds) << "," << show(l.rate_per_minute) << "," << show(l.max_concurrency)
    << "} params={";
  for (const auto& raw : p) o << raw.key << "=" << YAML::Dump(raw.value) << ";";
  o << "} audit=" << show(r.audit) << "}";
  return o.str();
}
std::string show(const PolicyDocument& d) {
  std::ostringstream o;
  o << "preset=" << show(d.preset) << " base_dir=" << show(d.base_dir) << " groups=";
  for (const auto& [name, on] : d.groups) o << name << ":" << show(on) << ",";
  o << " defaults=" << (d.defaults ? show(*d.defaults) : "-") << " endpoints=";
  for (const auto& [selector, rule] : d.endpoints) o << selector << ":" << show(rule) << ";";
  o << " tokens=";
  for (const auto& t : d.tokens)
    o << t.id << ":" << show(t.token_env) << ":" << show(t.token_sha256) << ":" << show(t.scopes)
      << ";";
  o << " audit_log=" << show(d.audit_log);
  return o.str();
}

const std::string kHash(64, 'a');

// ---- accepted values ------------------------------------------------------

struct RuleCase {
  std::string yaml;  // the rule, in flow style
  std::function<void(const RuleSpec&)> check;
};

TEST(PolicyDocument, EveryRuleKeyLandsInItsField) {
  const std::vector<RuleCase> cases = {
      {"{enabled: false}", [](const RuleSpec& r) { EXPECT_EQ(r.enabled, false); }},
      {"{enabled: true}", [](const RuleSpec& r) { EXPECT_EQ(r.enabled, true); }},
      {"{scopes: [files:read, 'files:write']}",
       [](const RuleSpec& r) {
         EXPECT_EQ(r.scopes, (std::vector<std::string>{"files:read", "files:write"}));
       }},
      {"{scopes: []}", [](const RuleSpec& r) { EXPECT_EQ(r.scopes, std::vector<std::string>{}); }},
      {"{paths: {allow: [/a, /b]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(r.paths.allow, (std::vector<std::string>{"/a", "/b"}));
       }},
      {"{paths: {deny: ['**/.git/**']}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.paths.deny, std::vector<std::string>{"**/.git/**"}); }},
      {"{paths: {read_only: [/ro]}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.paths.read_only, std::vector<std::string>{"/ro"}); }},
      {"{paths: {symlinks: follow}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.paths.symlinks, "follow"); }},
      {"{paths: {symlinks: deny}}", [](const RuleSpec& r) { EXPECT_EQ(r.paths.symlinks, "deny"); }},
      {"{limits: {max_bytes: 5MB}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_bytes, 5000000u); }},
      {"{limits: {max_bytes: 1048576}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_bytes, 1048576u); }},
      {"{limits: {max_bytes: '2KiB'}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_bytes, 2048u); }},
      {"{limits: {max_bytes: 0}}", [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_bytes, 0u); }},
      {"{limits: {max_request_bytes: 10MiB}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_request_bytes, 10u << 20); }},
      {"{limits: {max_entries: 1000}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_entries, 1000u); }},
      {"{limits: {max_output_bytes: 1G}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_output_bytes, 1u << 30); }},
      {"{limits: {max_duration_seconds: 2.5}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_duration_seconds, 2.5); }},
      {"{limits: {max_duration_seconds: 0}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_duration_seconds, 0.0); }},
      {"{limits: {timeout_seconds: 60}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.timeout_seconds, 60.0); }},
      {"{limits: {rate_per_minute: 600}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.rate_per_minute, 600u); }},
      {"{limits: {max_concurrency: 16}}",
       [](const RuleSpec& r) { EXPECT_EQ(r.limits.max_concurrency, 16u); }},
      {"{params: {overwrite: false}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "overwrite", ParamType::boolean), ParamValue(false));
       }},
      {"{params: {block_private_networks: true}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "block_private_networks", ParamType::boolean), ParamValue(true));
       }},
      {"{params: {allow_extensions: [.txt, .md]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "allow_extensions", ParamType::string_list),
                   ParamValue((std::vector<std::string>{".txt", ".md"})));
       }},
      {"{params: {deny_extensions: [.sh, .so]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "deny_extensions", ParamType::string_list),
                   ParamValue((std::vector<std::string>{".sh", ".so"})));
       }},
      {"{params: {allow_commands: [ls]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "allow_commands", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"ls"}));
       }},
      {"{params: {deny_commands: [rm]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "deny_commands", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"rm"}));
       }},
      {"{params: {languages: [python, bash]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "languages", ParamType::string_list),
                   ParamValue((std::vector<std::string>{"python", "bash"})));
       }},
      {"{params: {url_allow: ['https://*.example.com/*']}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "url_allow", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"https://*.example.com/*"}));
       }},
      {"{params: {url_deny: ['http://*']}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "url_deny", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"http://*"}));
       }},
      {"{params: {shells: [/bin/sh]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "shells", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"/bin/sh"}));
       }},
      {"{params: {env_deny: [AWS_*]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "env_deny", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"AWS_*"}));
       }},
      {"{params: {allow_vars: [LANG]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "allow_vars", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"LANG"}));
       }},
      {"{params: {deny_vars: [PATH]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "deny_vars", ParamType::string_list),
                   ParamValue(std::vector<std::string>{"PATH"}));
       }},
      {"{params: {allowed_signals: [2, 15]}}",
       [](const RuleSpec& r) {
         EXPECT_EQ(param(r, "allowed_signals", ParamType::integer_list),
                   ParamValue((std::vector<std::int64_t>{2, 15})));
       }},
      {"{audit: off}", [](const RuleSpec& r) { EXPECT_EQ(r.audit, AuditLevel::off); }},
      {"{audit: deny}", [](const RuleSpec& r) { EXPECT_EQ(r.audit, AuditLevel::deny); }},
      {"{audit: all}", [](const RuleSpec& r) { EXPECT_EQ(r.audit, AuditLevel::all); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.yaml);
    c.check(ruleOf(c.yaml));
    // The same rule under defaults: lands in the same fields.
    auto doc = mustParse("defaults: " + c.yaml + "\n");
    ASSERT_TRUE(doc.defaults.has_value());
    EXPECT_EQ(show(*doc.defaults), show(ruleOf(c.yaml)));
  }
}

TEST(PolicyDocument, UnsetFieldsStayUnset) {
  auto r = ruleOf("{}");
  EXPECT_EQ(show(r), show(RuleSpec{}));
  EXPECT_FALSE(r.enabled.has_value());
  EXPECT_FALSE(r.paths.symlinks.has_value());
  EXPECT_FALSE(r.limits.max_bytes.has_value());
  EXPECT_TRUE(r.params.empty());
  EXPECT_FALSE(r.audit.has_value());
}

TEST(PolicyDocument, NullMeansNotSet) {
  auto doc = mustParse(
      "preset: ~\nbase_dir:\ngroups: ~\ndefaults: ~\naudit_log: null\nauth: ~\n"
      "endpoints:\n  shell: ~\n  files_list:\n    enabled: ~\n    limits: ~\n"
      "    paths: {allow: ~, symlinks: ~}\n    params: {overwrite: ~}\n    audit: ~\n");
  EXPECT_FALSE(doc.preset);
  EXPECT_FALSE(doc.base_dir);
  EXPECT_TRUE(doc.groups.empty());
  EXPECT_FALSE(doc.defaults);
  EXPECT_FALSE(doc.audit_log);
  EXPECT_TRUE(doc.tokens.empty());
  // A selector with a null rule is kept (so the engine still checks the id).
  ASSERT_EQ(doc.endpoints.size(), 2u);
  EXPECT_EQ(doc.endpoints[0].first, "shell");
  EXPECT_EQ(show(doc.endpoints[0].second), show(RuleSpec{}));
  EXPECT_EQ(show(doc.endpoints[1].second), show(RuleSpec{}));
}

TEST(PolicyDocument, EmptyInputsAreTheEmptyPolicy) {
  for (const std::string text :
       {"", "# just a comment\n", "{}", "---\n", "server:\n", "server: {}"}) {
    SCOPED_TRACE(text);
    auto doc = mustParse(text);
    EXPECT_EQ(show(doc), show(PolicyDocument{}));
  }
}

TEST(PolicyDocument, TopLevelKeysLandInTheirFields) {
  auto doc = mustParse(
      "preset: hardened\n"
      "base_dir: /srv/data\n"
      "groups: {process: false, dev_tools: true, agents: false}\n"
      "defaults: {enabled: false}\n"
      "endpoints:\n"
      "  shell: {enabled: true}\n"
      "  'files_*': {audit: all}\n"
      "  group:terminal: {enabled: false}\n"
      "  '@defaults': {scopes: ['*']}\n"
      "auth:\n"
      "  tokens:\n"
      "    - {id: ci, token_env: CI_TOKEN, scopes: ['files:read']}\n"
      "    - {id: admin, token_sha256: '" +
          kHash +
          "', scopes: ['*']}\n"
          "    - {id: bare, token_env: BARE}\n"
          "audit_log: /var/log/abx-audit.jsonl\n",
      "file:/etc/p.yaml");
  EXPECT_EQ(doc.source, "file:/etc/p.yaml");
  EXPECT_EQ(doc.preset, "hardened");
  EXPECT_EQ(doc.base_dir, "/srv/data");
  EXPECT_THAT(doc.groups,
              ElementsAre(Pair("process", false), Pair("dev_tools", true), Pair("agents", false)));
  ASSERT_TRUE(doc.defaults);
  EXPECT_EQ(doc.defaults->enabled, false);
  ASSERT_EQ(doc.endpoints.size(), 4u);  // document order is kept
  EXPECT_EQ(doc.endpoints[0].first, "shell");
  EXPECT_EQ(doc.endpoints[0].second.enabled, true);
  EXPECT_EQ(doc.endpoints[1].first, "files_*");
  EXPECT_EQ(doc.endpoints[1].second.audit, AuditLevel::all);
  EXPECT_EQ(doc.endpoints[2].first, "group:terminal");
  EXPECT_EQ(doc.endpoints[3].first, "@defaults");
  EXPECT_EQ(doc.endpoints[3].second.scopes, std::vector<std::string>{"*"});
  ASSERT_EQ(doc.tokens.size(), 3u);
  EXPECT_EQ(doc.tokens[0].id, "ci");
  EXPECT_EQ(doc.tokens[0].token_env, "CI_TOKEN");
  EXPECT_FALSE(doc.tokens[0].token_sha256);
  EXPECT_EQ(doc.tokens[0].scopes, std::vector<std::string>{"files:read"});
  EXPECT_EQ(doc.tokens[1].id, "admin");
  EXPECT_EQ(doc.tokens[1].token_sha256, kHash);
  EXPECT_FALSE(doc.tokens[1].token_env);
  EXPECT_TRUE(doc.tokens[2].scopes.empty());
  EXPECT_EQ(doc.audit_log, "/var/log/abx-audit.jsonl");
}

TEST(PolicyDocument, EveryPresetNameIsAccepted) {
  for (const std::string name : {"default", "transfer-only", "read-only", "hardened", "locked"})
    EXPECT_EQ(mustParse("preset: " + name).preset, name);
}

TEST(PolicyDocument, GroupOrderIsDocumentOrder) {
  auto doc = mustParse("groups:\n  zeta: true\n  alpha: false\n  mid: true\n");
  EXPECT_THAT(doc.groups, ElementsAre(Pair("zeta", true), Pair("alpha", false), Pair("mid", true)));
}

TEST(PolicyDocument, TokenSha256IsStoredLowerCase) {
  std::string upper(64, 'A');
  auto doc = mustParse("auth: {tokens: [{id: x, token_sha256: '" + upper + "'}]}");
  ASSERT_EQ(doc.tokens.size(), 1u);
  EXPECT_EQ(doc.tokens[0].token_sha256, std::string(64, 'a'));
}

// ---- YAML, JSON and the server: wrapper -----------------------------------

const char* kYaml = R"(
preset: transfer-only
base_dir: /home/user
groups:
  dev_tools: true
defaults:
  audit: deny
endpoints:
  files_download_stream:
    paths: { allow: [/home/user/out], deny: ["**/.git/**"] }
    limits: { max_bytes: 5MB, rate_per_minute: 60, timeout_seconds: 1.5 }
  files_upload_stream:
    paths: { allow: [/home/user/in] }
    params: { overwrite: false, deny_extensions: [.sh, .so], allowed_signals: [2, 9] }
    limits: { max_bytes: 20MB }
auth:
  tokens:
    - { id: ci,    token_env: CI_TOKEN,    scopes: ["files:read"] }
    - { id: admin, token_sha256: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", scopes: ["*"] }
audit_log: stderr
)";

const char* kJson = R"({
	"preset": "transfer-only",
	"base_dir": "/home/user",
	"groups": {"dev_tools": true},
	"defaults": {"audit": "deny"},
	"endpoints": {
		"files_download_stream": {
			"paths": {"allow": ["/home/user/out"], "deny": ["**/.git/**"]},
			"limits": {"max_bytes": "5MB", "rate_per_minute": 60, "timeout_seconds": 1.5}
		},
		"files_upload_stream": {
			"paths": {"allow": ["/home/user/in"]},
			"params": {"overwrite": false, "deny_extensions": [".sh", ".so"], "allowed_signals": [2, 9]},
			"limits": {"max_bytes": 20000000}
		}
	},
	"auth": {"tokens": [
		{"id": "ci", "token_env": "CI_TOKEN", "scopes": ["files:read"]},
		{"id": "admin", "token_sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "scopes": ["*"]}
	]},
	"audit_log": "stderr"
})";

TEST(PolicyDocument, YamlAndJsonReadTheSame) {
  auto yaml = mustParse(kYaml);
  auto json = mustParse(kJson);
  EXPECT_EQ(show(yaml), show(json));
  EXPECT_EQ(json.endpoints.at(0).second.limits.max_bytes, 5000000u);
  EXPECT_EQ(param(json.endpoints.at(1).second, "allowed_signals", ParamType::integer_list),
            ParamValue((std::vector<std::int64_t>{2, 9})));
}

TEST(PolicyDocument, CompactInlineJsonParses) {
  auto doc = mustParse(R"({"endpoints":{"shell":{"enabled":false}}})", "env:ABX_SERVER_POLICY");
  ASSERT_EQ(doc.endpoints.size(), 1u);
  EXPECT_EQ(doc.endpoints[0].first, "shell");
  EXPECT_EQ(doc.endpoints[0].second.enabled, false);
  auto limits = mustParse(R"({"defaults":{"limits":{"max_bytes":1024,"timeout_seconds":0.5}}})");
  EXPECT_EQ(limits.defaults->limits.max_bytes, 1024u);
  EXPECT_EQ(limits.defaults->limits.timeout_seconds, 0.5);
}

TEST(PolicyDocument, ServerWrapperIsUnwrapped) {
  std::string wrapped = "server:\n";
  std::istringstream lines(kYaml);
  for (std::string line; std::getline(lines, line);) wrapped += "  " + line + "\n";
  EXPECT_EQ(show(mustParse(wrapped)), show(mustParse(kYaml)));
  EXPECT_EQ(show(mustParse(std::string(R"({"server":)") + kJson + "}")), show(mustParse(kJson)));
}

// ---- errors ---------------------------------------------------------------

struct ErrorCase {
  std::string text;
  std::string message;
};

TEST(PolicyDocument, ValidationErrorsNameThePathAndHint) {
  const std::string bad_hash(63, 'a');
  const std::string non_hex = std::string(63, 'a') + "g";
  const std::vector<ErrorCase> cases = {
      // unknown keys at every level, with did-you-mean
      {"presett: locked", "test: unknown key 'presett' (did you mean 'preset'?)"},
      {"endpoint: {}", "test: unknown key 'endpoint' (did you mean 'endpoints'?)"},
      {"enabled: false", "test: unknown key 'enabled' (did you mean 'defaults.enabled'?)"},
      {"frobnicate: 1", "test: unknown key 'frobnicate'"},
      {"defaults: {enabeld: true}",
       "test: defaults: unknown key 'enabeld' (did you mean 'enabled'?)"},
      {"endpoints: {shell: {limits: {max_byte: 1}}}",
       "test: endpoints.shell.limits: unknown key 'max_byte' (did you mean 'max_bytes'?)"},
      {"endpoints: {shell: {max_bytes: 1}}",
       "test: endpoints.shell: unknown key 'max_bytes' (did you mean 'limits.max_bytes'?)"},
      {"endpoints: {shell: {paths: {alow: []}}}",
       "test: endpoints.shell.paths: unknown key 'alow' (did you mean 'allow'?)"},
      {"auth: {token: []}", "test: auth: unknown key 'token' (did you mean 'tokens'?)"},
      {"auth: {tokens: [{id: a, token_env: A, scope: []}]}",
       "test: auth.tokens[0]: unknown key 'scope' (did you mean 'scopes'?)"},
      {"server: {presets: locked}", "test: server: unknown key 'presets' (did you mean 'preset'?)"},
      {"server: {}\npreset: locked",
       "test: unknown key 'preset' next to 'server' (put every policy key under 'server:')"},
      // wrong types
      {"- a\n- b", "test: a policy must be a mapping, got a list"},
      {"just text", "test: a policy must be a mapping, got 'just text'"},
      {"server: [1]", "test: server: expected a mapping, got a list"},
      {"groups: [a]", "test: groups: expected a mapping of group names to true/false, got a list"},
      {"groups: {process: maybe}", "test: groups.process: expected true or false, got 'maybe'"},
      {"defaults: true", "test: defaults: expected a mapping (a rule), got 'true'"},
      {"endpoints: [shell]",
       "test: endpoints: expected a mapping of selectors to rules, got a list"},
      {"endpoints: {shell: {enabled: 'false'}}",
       "test: endpoints.shell.enabled: expected true or false, got the string 'false'"},
      {"endpoints: {shell: {enabled: 1}}",
       "test: endpoints.shell.enabled: expected true or false, got '1'"},
      {"endpoints: {shell: {scopes: 'files:read'}}",
       "test: endpoints.shell.scopes: expected a list of strings, got the string 'files:read'"},
      {"endpoints: {shell: {scopes: [a, [b]]}}",
       "test: endpoints.shell.scopes[1]: expected a string, got a list"},
      {"endpoints: {shell: {paths: [a]}}",
       "test: endpoints.shell.paths: expected a mapping, got a list"},
      {"endpoints: {shell: {paths: {deny: /x}}}",
       "test: endpoints.shell.paths.deny: expected a list of strings, got '/x'"},
      {"endpoints: {shell: {limits: 5}}",
       "test: endpoints.shell.limits: expected a mapping, got '5'"},
      {"base_dir: [a]", "test: base_dir: expected a string, got a list"},
      {"base_dir: ''", "test: base_dir: must not be empty"},
      {"audit_log: {}", "test: audit_log: expected a string, got a mapping"},
      // sizes and numbers
      {"defaults: {limits: {max_bytes: 5XB}}",
       "test: defaults.limits.max_bytes: invalid size '5XB'; expected a whole number of bytes "
       "such as 1048576, 512KB, 5MB or 1GiB"},
      {"defaults: {limits: {max_bytes: 1.5MB}}",
       "test: defaults.limits.max_bytes: invalid size '1.5MB'; expected a whole number of bytes "
       "such as 1048576, 512KB, 5MB or 1GiB"},
      {"defaults: {limits: {max_output_bytes: -1}}",
       "test: defaults.limits.max_output_bytes: must not be negative, got '-1'"},
      {"defaults: {limits: {max_request_bytes: [1]}}",
       "test: defaults.limits.max_request_bytes: expected a size (a byte count or a string such "
       "as \"5MB\"), got a list"},
      {"defaults: {limits: {max_entries: ''}}",
       "test: defaults.limits.max_entries: invalid size ''; expected a whole number of "
       "bytes such as 1048576, 512KB, 5MB or 1GiB"},
      {"defaults: {limits: {timeout_seconds: -2}}",
       "test: defaults.limits.timeout_seconds: must not be negative, got '-2'"},
      {"defaults: {limits: {max_duration_seconds: soon}}",
       "test: defaults.limits.max_duration_seconds: expected a number of seconds, got 'soon'"},
      {"defaults: {limits: {timeout_seconds: .inf}}",
       "test: defaults.limits.timeout_seconds: expected a number of seconds, got '.inf'"},
      {"defaults: {limits: {timeout_seconds: '5'}}",
       "test: defaults.limits.timeout_seconds: expected a number of seconds, got the string '5'"},
      {"defaults: {limits: {rate_per_minute: 0}}",
       "test: defaults.limits.rate_per_minute: must be a positive integer, got 0"},
      {"defaults: {limits: {rate_per_minute: -5}}",
       "test: defaults.limits.rate_per_minute: must not be negative, got '-5'"},
      {"defaults: {limits: {max_concurrency: 1.5}}",
       "test: defaults.limits.max_concurrency: expected a positive integer, got '1.5'"},
      {"defaults: {limits: {max_concurrency: 4294967296}}",
       "test: defaults.limits.max_concurrency: is too large, got '4294967296'"},
      // enumerations
      {"preset: readonly",
       "test: preset: invalid value 'readonly' (did you mean 'read-only'?); expected one of "
       "default, transfer-only, read-only, hardened, locked"},
      {"preset: paranoid",
       "test: preset: invalid value 'paranoid'; expected one of default, transfer-only, "
       "read-only, hardened, locked"},
      {"defaults: {paths: {symlinks: follw}}",
       "test: defaults.paths.symlinks: invalid value 'follw' (did you mean 'follow'?); expected "
       "one of follow, deny"},
      {"defaults: {paths: {symlinks: true}}",
       "test: defaults.paths.symlinks: invalid value 'true'; expected one of follow, deny"},
      {"defaults: {audit: every}",
       "test: defaults.audit: invalid value 'every'; expected one of off, deny, all"},
      {"endpoints: {shell: {audit: dney}}",
       "test: endpoints.shell.audit: invalid value 'dney' (did you mean 'deny'?); expected one "
       "of off, deny, all"},
      // selectors
      {"endpoints: {'': {enabled: false}}",
       "test: endpoints: empty selector; use an endpoint id, a glob, group:<name> or @defaults"},
      {"endpoints: {'group:': {enabled: false}}",
       "test: endpoints: selector 'group:' has an empty group name"},
      {"endpoints: {'@default': {enabled: false}}",
       "test: endpoints: unknown selector '@default' (did you mean '@defaults'?)"},
      {"endpoints: {'files list': {enabled: false}}",
       "test: endpoints: selector 'files list' contains whitespace"},
      // tokens
      {"auth: {tokens: {id: a}}", "test: auth.tokens: expected a list of tokens, got a mapping"},
      {"auth: {tokens: [ci]}", "test: auth.tokens[0]: expected a mapping, got 'ci'"},
      {"auth: {tokens: [{token_env: A}]}", "test: auth.tokens[0]: 'id' is required"},
      {"auth: {tokens: [{id: '', token_env: A}]}", "test: auth.tokens[0].id: must not be empty"},
      {"auth: {tokens: [{id: a, token_env: A, token_sha256: '" + kHash + "'}]}",
       "test: auth.tokens[0]: token 'a' sets both 'token_env' and 'token_sha256'; set exactly "
       "one"},
      {"auth: {tokens: [{id: a, scopes: ['*']}]}",
       "test: auth.tokens[0]: token 'a' needs one of 'token_env' or 'token_sha256'"},
      {"auth: {tokens: [{id: a, token_sha256: '" + bad_hash + "'}]}",
       "test: auth.tokens[0].token_sha256: expected 64 hex digits (a SHA-256 digest), got 63 "
       "characters"},
      {"auth: {tokens: [{id: a, token_sha256: '" + non_hex + "'}]}",
       "test: auth.tokens[0].token_sha256: expected 64 hex digits (a SHA-256 digest), got 64 "
       "characters with a non-hex digit"},
      {"auth: {tokens: [{id: a, token_env: A}, {id: b, token_env: B}, {id: a, token_env: C}]}",
       "test: auth.tokens[2].id: duplicate token id 'a'"},
      {"auth: {tokens: [{id: a, token_env: ''}]}",
       "test: auth.tokens[0].token_env: must not be empty"},
      // the server: prefix is part of the path
      {"server:\n  endpoints: {shell: {limits: {max_byte: 1}}}",
       "test: server.endpoints.shell.limits: unknown key 'max_byte' (did you mean 'max_bytes'?)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(errorOf(c.text), c.message);
  }
}

TEST(PolicyDocument, MalformedYamlReportsTheLine) {
  auto message = errorOf("endpoints:\n  shell: {enabled: false\n");
  EXPECT_THAT(message, ::testing::StartsWith("test: invalid YAML at line "));
  EXPECT_THAT(errorOf(R"({"endpoints": {"shell": )"), ::testing::StartsWith("test: invalid YAML"));
}

TEST(PolicyDocument, FirstErrorInDocumentOrderIsReported) {
  EXPECT_EQ(errorOf("base_dir: /x\nendpoints: {a: {enabld: true}}\npresett: x\n"),
            "test: endpoints.a: unknown key 'enabld' (did you mean 'enabled'?)");
}

TEST(PolicyDocument, LoadPolicyFileSetsTheSourceAndReportsMissingFiles) {
  char name[] = "/tmp/abx_policy_testXXXXXX";
  int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::close(fd);
  {
    std::ofstream out(name);
    out << "preset: locked\nendpoints: {health: {}}\n";
  }
  auto doc = loadPolicyFile(name);
  ASSERT_TRUE(doc.isOk()) << doc.status().message();
  EXPECT_EQ(doc->source, std::string("file:") + name);
  EXPECT_EQ(doc->preset, "locked");
  {
    std::ofstream out(name);
    out << "presett: locked\n";
  }
  auto bad = loadPolicyFile(name);
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().message(),
            std::string("file:") + name + ": unknown key 'presett' (did you mean 'preset'?)");
  std::remove(name);
  auto missing = loadPolicyFile(name);
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().type(), "ConfigError");
  EXPECT_EQ(missing.status().message(), std::string("file:") + name +
                                            ": cannot read the policy file: No such file or "
                                            "directory");
}

// ---- parseSize, selectorKind, globMatch -----------------------------------

TEST(ParseSize, Table) {
  struct Case {
    const char* text;
    std::optional<std::uint64_t> bytes;
  };
  const std::vector<Case> cases = {
      {"0", 0},
      {"1048576", 1048576},
      {"100B", 100},
      {"100b", 100},
      {"512KB", 512000},
      {"5MB", 5000000},
      {"5mb", 5000000},
      {"2GB", 2000000000},
      {"1TB", 1000000000000},
      {"1K", 1024},
      {"5M", 5u << 20},
      {"1G", 1073741824},
      {"1T", 1ull << 40},
      {"2KiB", 2048},
      {"5MiB", 5242880},
      {"5mib", 5242880},
      {"1GiB", 1073741824},
      {"1TiB", 1ull << 40},
      {" 5 MB ", 5000000},  // surrounding space and a space before the unit
      {"18446744073709551615", 18446744073709551615ull},
      // rejected
      {"", std::nullopt},
      {"  ", std::nullopt},
      {"MB", std::nullopt},
      {"5XB", std::nullopt},
      {"5MBB", std::nullopt},
      {"5 M B", std::nullopt},
      {"-1", std::nullopt},
      {"+1", std::nullopt},
      {"1.5MB", std::nullopt},  // fractions are rejected: write 1500KB
      {"1.0", std::nullopt},
      {".5G", std::nullopt},
      {"1e6", std::nullopt},
      {"0x10", std::nullopt},
      {"18446744073709551616", std::nullopt},  // overflows uint64
      {"16777216TiB", std::nullopt},           // overflows after scaling
  };
  for (const auto& c : cases) EXPECT_EQ(parseSize(c.text), c.bytes) << "'" << c.text << "'";
}

TEST(SelectorKind, Table) {
  const std::vector<std::pair<const char*, SelectorKind>> cases = {
      {"shell", SelectorKind::exact},          {"files_upload_stream", SelectorKind::exact},
      {"files_*", SelectorKind::glob},         {"pty_?et", SelectorKind::glob},
      {"process_[gl]*", SelectorKind::glob},   {"*", SelectorKind::glob},
      {"group:file_ops", SelectorKind::group}, {"group:*", SelectorKind::group},
      {"@defaults", SelectorKind::defaults},
  };
  for (const auto& [selector, kind] : cases) EXPECT_EQ(selectorKind(selector), kind) << selector;
  EXPECT_LT(SelectorKind::exact, SelectorKind::glob);
  EXPECT_LT(SelectorKind::glob, SelectorKind::group);
  EXPECT_LT(SelectorKind::group, SelectorKind::defaults);
}

TEST(GlobMatch, Table) {
  struct Case {
    const char* pattern;
    const char* text;
    bool match;
  };
  const std::vector<Case> cases = {
      {"shell", "shell", true},
      {"shell", "shell_stream", false},
      {"shell*", "shell_stream", true},
      {"shell*", "shell", true},
      {"files_*", "files_list", true},
      {"files_*", "download", false},
      {"*_stream", "files_upload_stream", true},
      {"pty_?et", "pty_get", true},
      {"pty_?et", "pty_gett", false},
      {"process_[gl]*", "process_list", true},
      {"process_[gl]*", "process_get", true},
      {"process_[gl]*", "process_start", false},
      {"process_[!s]*", "process_start", false},
      {"*", "anything", true},
      {"*", "", true},
      {"", "", true},
      {"", "x", false},
      {"a*b", "a/x/b", true},  // no '/' special case
      {"*/*", "a/b", true},
  };
  for (const auto& c : cases)
    EXPECT_EQ(globMatch(c.pattern, c.text), c.match) << c.pattern << " vs " << c.text;
  std::string long_id(300, 'x');  // longer than the stack buffer
  EXPECT_TRUE(globMatch("x*", long_id));
  EXPECT_FALSE(globMatch("y*", long_id));
}

// ---- shipped presets ------------------------------------------------------

PolicyDocument preset(const std::string& name) {
  auto result = loadPolicyFile(std::string(ABX_SOURCE_DIR) + "/config/presets/" + name + ".yaml");
  EXPECT_TRUE(result.isOk()) << name << ": " << result.status().message();
  auto doc = result.isOk() ? std::move(result).value() : PolicyDocument{};
  EXPECT_FALSE(doc.preset) << name << " must not name a preset";
  EXPECT_TRUE(doc.tokens.empty()) << name << " must not carry auth";
  EXPECT_FALSE(doc.base_dir) << name;
  EXPECT_FALSE(doc.audit_log) << name;
  return doc;
}

/** selector -> enabled, for the endpoints a preset names. */
std::vector<std::pair<std::string, std::optional<bool>>> switches(const PolicyDocument& doc) {
  std::vector<std::pair<std::string, std::optional<bool>>> out;
  for (const auto& [selector, rule] : doc.endpoints) out.emplace_back(selector, rule.enabled);
  return out;
}

/** A rule that sets `enabled` (to @p on) and nothing else. */
RuleSpec onlyEnabled(std::optional<bool> on) {
  RuleSpec r;
  r.enabled = on;
  return r;
}

TEST(Presets, DefaultIsEmpty) { EXPECT_EQ(show(preset("default")), show(PolicyDocument{})); }

TEST(Presets, TransferOnlyEnablesOnlyTransfers) {
  auto doc = preset("transfer-only");
  // A "*" glob, not defaults: a glob is more specific than any group:
  // selector, so no enableGroup or ABX_SERVER_ENABLED_GROUPS reopens a group.
  EXPECT_FALSE(doc.defaults);
  EXPECT_TRUE(doc.groups.empty());
  ASSERT_FALSE(doc.endpoints.empty());
  EXPECT_EQ(selectorKind(doc.endpoints[0].first), SelectorKind::glob);
  for (const auto& [selector, rule] : doc.endpoints) {
    SCOPED_TRACE(selector);
    EXPECT_EQ(show(rule), show(onlyEnabled(rule.enabled)));  // only `enabled`
    if (selector != "*") {
      EXPECT_EQ(selectorKind(selector), SelectorKind::exact);
    }
  }
  EXPECT_THAT(switches(doc),
              ElementsAre(Pair("*", false), Pair("download", true), Pair("upload", true),
                          Pair("files_list", true), Pair("files_stat", true),
                          Pair("files_upload_stream", true), Pair("files_download_stream", true),
                          Pair("files_mkdir", true)));
}

TEST(Presets, ReadOnlyTurnsOffEveryWriter) {
  auto doc = preset("read-only");
  EXPECT_THAT(doc.groups, ElementsAre(Pair("browser", false), Pair("agents", false)));
  ASSERT_TRUE(doc.defaults);
  EXPECT_FALSE(doc.defaults->enabled);
  EXPECT_EQ(param(*doc.defaults, "overwrite", ParamType::boolean), ParamValue(false));
  EXPECT_FALSE(doc.defaults->paths.symlinks);
  std::vector<std::string> off;
  for (const auto& [selector, rule] : doc.endpoints) {
    EXPECT_EQ(rule.enabled, false) << selector;
    EXPECT_EQ(abx::kernel::selectorKind(selector), SelectorKind::exact) << selector;
    off.push_back(selector);
  }
  EXPECT_THAT(off, ::testing::UnorderedElementsAre(
                       "upload", "files_upload_stream", "files_mkdir", "files_delete", "files_move",
                       "shell", "shell_stream", "process_start", "process_signal", "process_stdin",
                       "pty_create", "pty_resize", "pty_delete", "pty_connect", "env_set",
                       "commands_run", "code_run"));
}

TEST(Presets, HardenedTightensDefaults) {
  auto doc = preset("hardened");
  EXPECT_THAT(doc.groups, ElementsAre(Pair("process", false), Pair("terminal", false),
                                      Pair("dev_tools", false), Pair("browser", false)));
  ASSERT_TRUE(doc.defaults);
  const auto& d = *doc.defaults;
  EXPECT_FALSE(d.enabled);
  EXPECT_EQ(d.paths.deny, (std::vector<std::string>{"**/.git/**", "**/.ssh/**", "**/.env"}));
  EXPECT_EQ(d.paths.symlinks, "deny");
  EXPECT_EQ(d.limits.max_request_bytes, 10u << 20);
  EXPECT_EQ(d.limits.rate_per_minute, 600u);
  EXPECT_EQ(d.limits.max_concurrency, 16u);
  EXPECT_EQ(d.limits.timeout_seconds, 60.0);
  EXPECT_EQ(param(d, "overwrite", ParamType::boolean), ParamValue(false));
  EXPECT_EQ(param(d, "block_private_networks", ParamType::boolean), ParamValue(true));
  EXPECT_EQ(d.audit, AuditLevel::all);
  ASSERT_EQ(doc.endpoints.size(), 2u);
  // System information only: no changes to children's environment.
  EXPECT_EQ(doc.endpoints[0].first, "env_set");
  EXPECT_EQ(show(doc.endpoints[0].second), show(onlyEnabled(false)));
  EXPECT_EQ(doc.endpoints[1].first, "files_upload_stream");
  EXPECT_EQ(doc.endpoints[1].second.limits.max_bytes, 100u << 20);
  EXPECT_FALSE(doc.endpoints[1].second.enabled);
}

TEST(Presets, LockedDisablesEverythingButCore) {
  auto doc = preset("locked");
  // A "*" glob, not defaults (see TransferOnlyEnablesOnlyTransfers).
  EXPECT_FALSE(doc.defaults);
  EXPECT_TRUE(doc.groups.empty());
  EXPECT_THAT(switches(doc), ElementsAre(Pair("*", false)));
  ASSERT_EQ(doc.endpoints.size(), 1u);
  EXPECT_EQ(selectorKind(doc.endpoints[0].first), SelectorKind::glob);
  EXPECT_EQ(show(doc.endpoints[0].second), show(onlyEnabled(false)));
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Presets, DocsQuoteEveryPresetFileVerbatim) {
  const std::string docs = readText(std::string(ABX_SOURCE_DIR) + "/docs/presets.md");
  for (const char* name : {"default", "transfer-only", "read-only", "hardened", "locked"}) {
    SCOPED_TRACE(name);
    const std::string file =
        readText(std::string(ABX_SOURCE_DIR) + "/config/presets/" + name + ".yaml");
    ASSERT_FALSE(file.empty());
    const std::string section = std::string("## `") + name + "`\n";
    auto at = docs.find(section);
    ASSERT_NE(at, std::string::npos) << "no section " << section;
    auto next = docs.find("\n## ", at + section.size());
    EXPECT_NE(docs.substr(at, next - at).find("```yaml\n" + file + "```\n"), std::string::npos)
        << "docs/presets.md does not quote config/presets/" << name << ".yaml verbatim";
  }
}

}  // namespace
