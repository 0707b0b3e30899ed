#include "policy/policy_document.h"

#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "policy/yaml_reads.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

using namespace yaml_reads;

// ---- key tables -----------------------------------------------------------

const std::vector<std::string> kTopKeys = {"preset",    "base_dir", "groups",   "defaults",
                                           "endpoints", "auth",     "audit_log"};
const std::vector<std::string> kRuleKeys = {"enabled", "scopes", "paths",
                                            "limits",  "params", "audit"};
const std::vector<std::string> kPathKeys = {"allow", "deny", "read_only", "symlinks"};
const std::vector<std::string> kLimitKeys = {
    "max_bytes",        "max_request_bytes",    "max_entries",
    "max_output_bytes", "max_duration_seconds", "timeout_seconds",
    "rate_per_minute",  "max_concurrency"};
const std::vector<std::string> kAuthKeys = {"tokens"};
const std::vector<std::string> kTokenKeys = {"id", "token_env", "token_sha256", "scopes"};
const std::vector<std::string> kPresets = {"default", "transfer-only", "read-only", "hardened",
                                           "locked"};
const std::vector<std::string> kSymlinkValues = {"follow", "deny"};
const std::vector<std::string> kAuditValues = {"off", "deny", "all"};

// ---- sections -------------------------------------------------------------

void readPaths(const YAML::Node& node, const std::string& path, RuleSpec::Paths& out) {
  eachKey(node, path, kPathKeys, [&](const std::string& key, const YAML::Node& value) {
    std::string at = join(path, key);
    if (key == "allow") {
      if (!value.IsNull()) out.allow = readStringList(value, at);
    } else if (key == "deny") {
      if (!value.IsNull()) out.deny = readStringList(value, at);
    } else if (key == "read_only") {
      if (!value.IsNull()) out.read_only = readStringList(value, at);
    } else if (key == "symlinks") {
      if (!value.IsNull()) out.symlinks = readChoice(value, at, kSymlinkValues);
    } else {
      return false;
    }
    return true;
  });
}

void readLimits(const YAML::Node& node, const std::string& path, sdk::Limits& out) {
  eachKey(node, path, kLimitKeys, [&](const std::string& key, const YAML::Node& value) {
    if (std::find(kLimitKeys.begin(), kLimitKeys.end(), key) == kLimitKeys.end()) return false;
    if (value.IsNull()) return true;
    std::string at = join(path, key);
    if (key == "max_bytes") out.max_bytes = readSize(value, at);
    if (key == "max_request_bytes") out.max_request_bytes = readSize(value, at);
    if (key == "max_entries") out.max_entries = readSize(value, at);
    if (key == "max_output_bytes") out.max_output_bytes = readSize(value, at);
    if (key == "max_duration_seconds") out.max_duration_seconds = readSeconds(value, at);
    if (key == "timeout_seconds") out.timeout_seconds = readSeconds(value, at);
    if (key == "rate_per_minute") out.rate_per_minute = readPositiveInt(value, at);
    if (key == "max_concurrency") out.max_concurrency = readPositiveInt(value, at);
    return true;
  });
}

// Parameters belong to the groups that declare them: their keys and types
// are checked when the policy is compiled against the loaded plugins.
void readParams(const YAML::Node& node, const std::string& path, std::vector<RawParam>& out) {
  const std::vector<std::string> any_key;
  eachKey(node, path, any_key, [&](const std::string& key, const YAML::Node& value) {
    if (!value.IsNull()) out.push_back({key, join(path, key), value});
    return true;
  });
}

/** "unknown key" for a rule, pointing at the sub-section a stray key belongs in. */
std::string unknownRuleKey(const std::string& key) {
  auto hint = didYouMean(key, kRuleKeys);
  if (hint.empty()) {
    for (const auto& [section, keys] :
         {std::pair{"paths", &kPathKeys}, std::pair{"limits", &kLimitKeys}}) {
      auto best = closestMatch(key, *keys);
      if (!best.empty()) {
        hint = std::string(" (did you mean '") + section + "." + best + "'?)";
        break;
      }
    }
  }
  return "unknown key '" + key + "'" + hint;
}

RuleSpec readRule(const YAML::Node& node, const std::string& path) {
  RuleSpec rule;
  if (node.IsNull()) return rule;
  if (!node.IsMap()) fail(path, "expected a mapping (a rule), got " + describe(node));
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(path, "keys must be strings, got " + describe(kv.first));
    const std::string& key = kv.first.Scalar();
    const YAML::Node& value = kv.second;
    std::string at = join(path, key);
    if (key == "enabled") {
      if (!value.IsNull()) rule.enabled = readBool(value, at);
    } else if (key == "scopes") {
      if (!value.IsNull()) rule.scopes = readStringList(value, at);
    } else if (key == "paths") {
      if (!value.IsNull()) readPaths(value, at, rule.paths);
    } else if (key == "limits") {
      if (!value.IsNull()) readLimits(value, at, rule.limits);
    } else if (key == "params") {
      if (!value.IsNull()) readParams(value, at, rule.params);
    } else if (key == "audit") {
      if (value.IsNull()) continue;
      auto level = readChoice(value, at, kAuditValues);
      rule.audit = level == "off"    ? sdk::AuditLevel::off
                   : level == "deny" ? sdk::AuditLevel::deny
                                     : sdk::AuditLevel::all;
    } else {
      fail(path, unknownRuleKey(key));
    }
  }
  return rule;
}

void checkSelector(const std::string& selector, const std::string& path) {
  if (selector.empty())
    fail(path,
         "empty selector; use an endpoint id, a glob, group:<name> or "
         "@defaults");
  if (std::any_of(selector.begin(), selector.end(),
                  [](unsigned char c) { return std::isspace(c) != 0; }))
    fail(path, "selector '" + selector + "' contains whitespace");
  if (selector.rfind("group:", 0) == 0 && selector.size() == 6)
    fail(path, "selector 'group:' has an empty group name");
  if (selector.front() == '@' && selector != "@defaults")
    fail(path, "unknown selector '" + selector + "'" + didYouMean(selector, {"@defaults"}));
}

bool isHex64(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

std::vector<TokenSpec> readTokens(const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) fail(path, "expected a list of tokens, got " + describe(node));
  std::vector<TokenSpec> tokens;
  std::size_t i = 0;
  for (const auto& entry : node) {
    std::string at = indexed(path, i++);
    TokenSpec token;
    bool has_id = false;
    eachKey(entry, at, kTokenKeys, [&](const std::string& key, const YAML::Node& value) {
      std::string field = join(at, key);
      if (key == "id") {
        if (value.IsNull()) return true;
        token.id = readString(value, field);
        has_id = true;
      } else if (key == "token_env") {
        if (!value.IsNull()) token.token_env = readString(value, field);
      } else if (key == "token_sha256") {
        if (value.IsNull()) return true;
        std::string hex = readString(value, field, /*allow_empty=*/true);
        if (!isHex64(hex))
          fail(field, "expected 64 hex digits (a SHA-256 digest), got " +
                          std::to_string(hex.size()) + " characters" +
                          (hex.size() == 64 ? " with a non-hex digit" : ""));
        std::transform(hex.begin(), hex.end(), hex.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        token.token_sha256 = std::move(hex);
      } else if (key == "scopes") {
        if (!value.IsNull()) token.scopes = readStringList(value, field);
      } else {
        return false;
      }
      return true;
    });
    if (!has_id) fail(at, "'id' is required");
    if (token.token_env && token.token_sha256)
      fail(at,
           "token '" + token.id + "' sets both 'token_env' and 'token_sha256'; set exactly one");
    if (!token.token_env && !token.token_sha256)
      fail(at, "token '" + token.id + "' needs one of 'token_env' or 'token_sha256'");
    for (const auto& other : tokens)
      if (other.id == token.id) fail(join(at, "id"), "duplicate token id '" + token.id + "'");
    tokens.push_back(std::move(token));
  }
  return tokens;
}

void readAuth(const YAML::Node& node, const std::string& path, PolicyDocument& doc) {
  eachKey(node, path, kAuthKeys, [&](const std::string& key, const YAML::Node& value) {
    if (key != "tokens") return false;
    if (!value.IsNull()) doc.tokens = readTokens(value, join(path, key));
    return true;
  });
}

void readGroups(const YAML::Node& node, const std::string& path, PolicyDocument& doc) {
  if (!node.IsMap())
    fail(path, "expected a mapping of group names to true/false, got " + describe(node));
  for (const auto& kv : node) {
    if (!kv.first.IsScalar() || kv.first.Scalar().empty())
      fail(path, "group names must be non-empty strings");
    const std::string& name = kv.first.Scalar();
    if (kv.second.IsNull()) continue;
    doc.groups.emplace_back(name, readBool(kv.second, join(path, name)));
  }
}

void readEndpoints(const YAML::Node& node, const std::string& path, PolicyDocument& doc) {
  if (!node.IsMap()) fail(path, "expected a mapping of selectors to rules, got " + describe(node));
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(path, "selectors must be strings, got " + describe(kv.first));
    const std::string& selector = kv.first.Scalar();
    checkSelector(selector, path);
    doc.endpoints.emplace_back(selector, readRule(kv.second, join(path, selector)));
  }
}

void readDocument(const YAML::Node& node, const std::string& path, PolicyDocument& doc) {
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(path, "keys must be strings, got " + describe(kv.first));
    const std::string& key = kv.first.Scalar();
    const YAML::Node& value = kv.second;
    std::string at = join(path, key);
    if (std::find(kTopKeys.begin(), kTopKeys.end(), key) == kTopKeys.end()) {
      auto hint = didYouMean(key, kTopKeys);
      if (hint.empty() && std::find(kRuleKeys.begin(), kRuleKeys.end(), key) != kRuleKeys.end())
        hint = " (did you mean 'defaults." + key + "'?)";
      fail(path, "unknown key '" + key + "'" + hint);
    }
    if (value.IsNull()) continue;
    if (key == "preset") {
      doc.preset = readChoice(value, at, kPresets);
    } else if (key == "base_dir") {
      doc.base_dir = readString(value, at);
    } else if (key == "groups") {
      readGroups(value, at, doc);
    } else if (key == "defaults") {
      doc.defaults = readRule(value, at);
    } else if (key == "endpoints") {
      readEndpoints(value, at, doc);
    } else if (key == "auth") {
      readAuth(value, at, doc);
    } else if (key == "audit_log") {
      doc.audit_log = readString(value, at);
    }
  }
}

sdk::Status configError(const std::string& source, const std::string& path,
                        const std::string& message) {
  std::string text = source;
  if (!path.empty()) text += (text.empty() ? "" : ": ") + path;
  text += (text.empty() ? "" : ": ") + message;
  return sdk::Status::error(std::move(text), "ConfigError");
}

}  // namespace

sdk::Result<PolicyDocument> parsePolicy(std::string_view text, std::string source) {
  PolicyDocument doc;
  doc.source = std::move(source);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    std::string where;
    if (!e.mark.is_null())
      where = " at line " + std::to_string(e.mark.line + 1) + ", column " +
              std::to_string(e.mark.column + 1);
    return configError(doc.source, "", "invalid YAML" + where + ": " + e.msg);
  }
  try {
    if (!root || root.IsNull()) return doc;
    if (!root.IsMap())
      return configError(doc.source, "", "a policy must be a mapping, got " + describe(root));
    std::string path;
    const YAML::Node& croot = root;  // const: operator[] must not insert keys
    YAML::Node body = root;
    if (croot["server"]) {
      for (const auto& kv : root) {
        if (kv.first.IsScalar() && kv.first.Scalar() == "server") continue;
        return configError(doc.source, "",
                           "unknown key '" + kv.first.as<std::string>() +
                               "' next to 'server' (put every policy key under 'server:')");
      }
      body = croot["server"];
      path = "server";
      if (body.IsNull()) return doc;
      if (!body.IsMap())
        return configError(doc.source, path, "expected a mapping, got " + describe(body));
    }
    readDocument(body, path, doc);
  } catch (const ParseError& e) {
    return configError(doc.source, e.path, e.message);
  } catch (const YAML::Exception& e) {
    return configError(doc.source, "", std::string("invalid policy: ") + e.what());
  }
  return doc;
}

sdk::Result<PolicyDocument> loadPolicyFile(const std::string& path) {
  std::string source = "file:" + path;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    int err = errno;
    return configError(source, "",
                       std::string("cannot read the policy file: ") + std::strerror(err));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return configError(source, "", "cannot read the policy file");
  return parsePolicy(text.str(), std::move(source));
}

std::optional<std::uint64_t> parseSize(std::string_view text) {
  auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;  // empty, signed, or fractional like ".5MB"
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, value);
  if (ec != std::errc() || end != text.data() + digits) return std::nullopt;  // overflow
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && is_space(unit.front())) unit.remove_prefix(1);
  std::string lower(unit);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::vector<std::pair<std::string_view, std::uint64_t>> kUnits = {
      {"", 1},
      {"b", 1},
      {"kb", 1000ull},
      {"mb", 1000ull * 1000},
      {"gb", 1000ull * 1000 * 1000},
      {"tb", 1000ull * 1000 * 1000 * 1000},
      {"k", 1ull << 10},
      {"m", 1ull << 20},
      {"g", 1ull << 30},
      {"t", 1ull << 40},
      {"kib", 1ull << 10},
      {"mib", 1ull << 20},
      {"gib", 1ull << 30},
      {"tib", 1ull << 40}};
  for (const auto& [name, factor] : kUnits) {
    if (lower != name) continue;
    if (value > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
    return value * factor;
  }
  return std::nullopt;
}

SelectorKind selectorKind(std::string_view selector) {
  if (selector == "@defaults") return SelectorKind::defaults;
  if (selector.rfind("group:", 0) == 0) return SelectorKind::group;
  if (selector.find_first_of("*?[") != std::string_view::npos) return SelectorKind::glob;
  return SelectorKind::exact;
}

bool globMatch(std::string_view pattern, std::string_view text) {
  // fnmatch needs NUL-terminated strings; ids and selectors are short, so a
  // stack buffer avoids allocating on the common path.
  char small[256];
  if (pattern.size() + text.size() + 2 <= sizeof(small)) {
    // string_view::copy, not memcpy: an empty view may have a null data().
    small[pattern.copy(small, pattern.size())] = '\0';
    char* t = small + pattern.size() + 1;
    t[text.copy(t, text.size())] = '\0';
    return ::fnmatch(small, t, 0) == 0;
  }
  std::string p(pattern), s(text);
  return ::fnmatch(p.c_str(), s.c_str(), 0) == 0;
}

}  // namespace abx::kernel
