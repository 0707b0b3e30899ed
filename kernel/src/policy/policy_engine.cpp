#include "policy/policy_engine.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>

#include "policy/authenticator.h"
#include "policy/param_rules.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

enum Layer { kDefault = 0, kCode = 1, kPreset = 2, kPolicy = 3, kEnv = 4 };

struct Selector {
  SelectorKind kind;
  std::string pattern;  // id, glob, or group name
  const RuleSpec* rule;
  int layer;
  int order;
  std::string name;  // the rule reported when this selector decides
};

bool matches(const Selector& s, const Route& route) {
  switch (s.kind) {
    case SelectorKind::exact:
      return s.pattern == route.spec.endpoint;
    case SelectorKind::glob:
      return globMatch(s.pattern, route.spec.endpoint);
    case SelectorKind::group:
      return s.pattern == route.spec.group;
    case SelectorKind::defaults:
      return true;
  }
  return false;
}

// The first (most specific, latest) selector that sets a field decides it.
template <class Get>
auto pick(const std::vector<const Selector*>& ordered, Get get) {
  using Opt = std::remove_cvref_t<decltype(get(std::declval<const RuleSpec&>()))>;
  for (const auto* s : ordered)
    if (const auto& v = get(*s->rule); v) return Opt(v);
  return Opt();
}

sdk::Status configError(const std::string& source, const std::string& message) {
  return sdk::Status::error(source + ": " + message, "ConfigError");
}

std::optional<std::array<unsigned char, 32>> fromHex(const std::string& hex) {
  if (hex.size() != 64) return std::nullopt;
  std::array<unsigned char, 32> out{};
  for (std::size_t i = 0; i < 32; ++i) {
    auto nibble = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      return -1;
    };
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return out;
}

std::optional<TokenDigest> environmentTokenDigest(const std::string& name) {
  return SecretEnvironment::instance().takeTokenDigest(name);
}

}  // namespace

const std::vector<std::string>& presetNames() {
  static const std::vector<std::string> kNames = {"default", "transfer-only", "read-only",
                                                  "hardened", "locked"};
  return kNames;
}

sdk::Result<PolicyDocument> loadPreset(const std::string& preset_dir, const std::string& name) {
  const auto& names = presetNames();
  if (std::find(names.begin(), names.end(), name) == names.end())
    return sdk::Status::error("unknown preset '" + name + "'" + didYouMean(name, names) +
                                  "; presets: default, transfer-only, read-only, hardened, locked",
                              "ConfigError");
  auto path = preset_dir + "/" + name + ".yaml";
  auto doc = loadPolicyFile(path);
  if (!doc) return doc.status();
  doc->source = "preset:" + name;
  return doc;
}

namespace {

// Builds one CompiledPolicy: each layer adds its selectors (default, code,
// preset, policy, environment), then every endpoint is resolved against the
// selectors that match it, then the identities are compiled.
class PolicyCompiler {
 public:
  PolicyCompiler(const PolicyInputs& in, std::uint64_t revision)
      : in_(in), routes_(*in.routes), params_(in.groups), out_(std::make_shared<CompiledPolicy>()) {
    out_->revision = revision;
    for (const auto& r : routes_.routes()) ids_.push_back(r->spec.endpoint);
    for (const auto& g : in.groups) group_names_.push_back(g.spec.name);
  }

  sdk::Result<std::shared_ptr<const CompiledPolicy>> compile() {
    addDefaultLayer();
    if (auto s = addCodeLayer(); !s) return s;
    if (auto s = addDocumentLayers(); !s) return s;
    for (const auto& g : in_.env_groups)
      add(SelectorKind::group, g, enabledRule(true), kEnv, "env:ABX_SERVER_ENABLED_GROUPS");
    out_->endpoints.resize(routes_.size());
    for (const auto& route : routes_.routes()) resolve(*route, out_->endpoints[route->index]);
    if (auto s = compileIdentities(); !s) return s;
    return std::shared_ptr<const CompiledPolicy>(std::move(out_));
  }

 private:
  bool knownGroup(const std::string& g) const {
    return std::find(group_names_.begin(), group_names_.end(), g) != group_names_.end();
  }
  bool isCoreId(const std::string& id) const {
    const Route* r = routes_.findEndpoint(id);
    return r && r->spec.group == "core";
  }
  void add(SelectorKind kind, std::string pattern, const RuleSpec* rule, int layer,
           std::string name) {
    selectors_.push_back({kind, std::move(pattern), rule, layer, order_++, std::move(name)});
  }
  const RuleSpec* enabledRule(bool on) {
    RuleSpec r;
    r.enabled = on;
    synthesized_.push_back(std::move(r));
    return &synthesized_.back();
  }

  // default: everything on, opt-in groups off.
  void addDefaultLayer() {
    add(SelectorKind::defaults, "", enabledRule(true), kDefault, "default");
    for (const auto& g : in_.groups)
      if (g.spec.opt_in && g.spec.name != "core")
        add(SelectorKind::group, g.spec.name, enabledRule(false), kDefault,
            "default:opt-in:" + g.spec.name);
  }

  // Toggles edit the code layer: the last call for a group is the one in force.
  sdk::Status addCodeLayer() {
    std::vector<CodeToggle> code;
    for (auto it = in_.code.rbegin(); it != in_.code.rend(); ++it)
      if (std::none_of(code.begin(), code.end(),
                       [&](const CodeToggle& c) { return c.group == it->group; }))
        code.insert(code.begin(), *it);
    for (const auto& t : code) {
      if (!knownGroup(t.group))
        return sdk::Status::error(
            "plugin " + t.plugin + ": " + (t.enable ? "enableGroup" : "disableGroup") +
                ": unknown group '" + t.group + "'" + didYouMean(t.group, group_names_),
            "ConfigError");
      if (t.group == "core" && !t.enable)
        return sdk::Status::error("plugin " + t.plugin + ": the core group cannot be disabled",
                                  "ConfigError");
      add(SelectorKind::group, t.group, enabledRule(t.enable), kCode,
          std::string("code:") + (t.enable ? "enable_group:" : "disable_group:") + t.group);
    }
    return sdk::Status::ok();
  }

  sdk::Status addDocumentLayers() {
    std::string base_dir = in_.base_dir;
    if (in_.preset) {
      const auto& source = in_.preset->source;
      out_->preset = source.starts_with("preset:") ? source.substr(7) : source;
      if (auto s = addDocument(*in_.preset, kPreset, "preset:" + out_->preset); !s) return s;
      out_->sources.push_back(source);
      if (in_.preset->base_dir) base_dir = *in_.preset->base_dir;
    }
    if (in_.policy) {
      if (auto s = addDocument(*in_.policy, kPolicy, "policy"); !s) return s;
      out_->sources.push_back(in_.policy->source);
      if (in_.policy->base_dir) base_dir = *in_.policy->base_dir;
      out_->audit_log = in_.policy->audit_log;
    }
    std::error_code ec;
    auto canonical = std::filesystem::weakly_canonical(base_dir, ec);
    out_->base_dir = ec ? base_dir : canonical.string();
    return sdk::Status::ok();
  }

  // Preset and policy documents share one shape; only the policy layer is
  // held to the installed endpoints and groups.
  sdk::Status addDocument(const PolicyDocument& doc, int layer, const std::string& label) {
    const bool checked = layer == kPolicy;
    for (const auto& [group, on] : doc.groups) {
      if (checked && !knownGroup(group))
        return configError(
            doc.source, "groups: unknown group '" + group + "'" + didYouMean(group, group_names_));
      if (group == "core" && !on) return configError(doc.source, "groups: core cannot be disabled");
      add(SelectorKind::group, group, enabledRule(on), layer,
          checked ? "policy:groups." + group : label);
    }
    if (doc.defaults) {
      if (auto s = params_.check(*doc.defaults, group_names_, checked, doc.source); !s) return s;
      add(SelectorKind::defaults, "", &*doc.defaults, layer, checked ? "policy:defaults" : label);
    }
    for (const auto& [selector, rule] : doc.endpoints) {
      if (auto s = checkSelector(doc, selector, rule, checked); !s) return s;
      if (auto s = params_.check(rule, groupsReached(selector), checked, doc.source); !s) return s;
      auto kind = selectorKind(selector);
      add(kind, kind == SelectorKind::group ? selector.substr(6) : selector, &rule, layer,
          checked ? "policy:endpoints." + selector : label);
    }
    return sdk::Status::ok();
  }

  sdk::Status checkSelector(const PolicyDocument& doc, const std::string& selector,
                            const RuleSpec& rule, bool checked) {
    auto kind = selectorKind(selector);
    std::string pattern = kind == SelectorKind::group ? selector.substr(6) : selector;
    if (kind == SelectorKind::exact && checked && !routes_.findEndpoint(selector))
      return configError(doc.source, "endpoints: unknown endpoint '" + selector + "'" +
                                         didYouMean(selector, ids_));
    if (kind == SelectorKind::group && checked && !knownGroup(pattern))
      return configError(doc.source, "endpoints: unknown group '" + pattern + "'" +
                                         didYouMean(pattern, group_names_));
    const bool disables_core = (kind == SelectorKind::exact && isCoreId(selector)) ||
                               (kind == SelectorKind::group && pattern == "core");
    if (disables_core && rule.enabled == false)
      return configError(doc.source, "endpoints." + selector + ": core cannot be disabled");
    if (kind == SelectorKind::glob && checked &&
        std::none_of(ids_.begin(), ids_.end(),
                     [&](const std::string& id) { return globMatch(selector, id); })) {
      std::string warning = doc.source + ": endpoints: '" + selector + "' matches no endpoint";
      if (in_.strict) return sdk::Status::error(warning, "ConfigError");
      out_->warnings.push_back(warning);
    }
    return sdk::Status::ok();
  }

  // The groups whose endpoints @p selector reaches: their parameters are
  // the keys its `params:` may set.
  std::vector<std::string> groupsReached(const std::string& selector) const {
    auto kind = selectorKind(selector);
    if (kind == SelectorKind::defaults) return group_names_;
    if (kind == SelectorKind::group) return {selector.substr(6)};
    std::vector<std::string> groups;
    for (const auto& route : routes_.routes()) {
      bool reached = kind == SelectorKind::exact ? route->spec.endpoint == selector
                                                 : globMatch(selector, route->spec.endpoint);
      if (reached && std::find(groups.begin(), groups.end(), route->spec.group) == groups.end())
        groups.push_back(route->spec.group);
    }
    return groups;
  }

  // The selectors that match @p route, most specific and latest first.
  std::vector<const Selector*> matching(const Route& route) const {
    std::vector<const Selector*> matched;
    for (const auto& s : selectors_)
      if (matches(s, route)) matched.push_back(&s);
    std::sort(matched.begin(), matched.end(), [](const Selector* a, const Selector* b) {
      if (a->kind != b->kind) return a->kind < b->kind;
      if (a->layer != b->layer) return a->layer > b->layer;
      return a->order > b->order;
    });
    return matched;
  }

  static void resolveEnabled(const Route& route, const std::vector<const Selector*>& matched,
                             sdk::EndpointPolicy& ep) {
    if (route.spec.group == "core") {
      ep.enabled = true;
      ep.rule = "default:core";
      return;
    }
    const Selector* winner = nullptr;
    for (const auto* s : matched) {
      if (!s->rule->enabled) continue;
      if (!winner) {
        winner = s;
      } else if (s->kind != winner->kind || s->layer != winner->layer) {
        break;
      }
      // Same layer and specificity: a single `enabled: false` wins.
      if (*s->rule->enabled == false) {
        winner = s;
        break;
      }
    }
    ep.enabled = winner ? *winner->rule->enabled : true;
    ep.rule = winner ? winner->name : "default";
    if (winner && winner->layer == kDefault && winner->kind == SelectorKind::defaults)
      ep.rule = "default:" + route.spec.group;
  }

  void resolve(const Route& route, sdk::EndpointPolicy& ep) const {
    const auto matched = matching(route);
    resolveEnabled(route, matched, ep);
    // core:read is implicit: every identity may reach the core endpoints.
    ep.scopes =
        route.spec.group == "core"
            ? route.spec.scopes
            : pick(matched, [](const RuleSpec& r) { return r.scopes; }).value_or(route.spec.scopes);
    if (auto v = pick(matched, [](const RuleSpec& r) { return r.paths.allow; }))
      ep.paths.allow = *v;
    if (auto v = pick(matched, [](const RuleSpec& r) { return r.paths.deny; })) ep.paths.deny = *v;
    if (auto v = pick(matched, [](const RuleSpec& r) { return r.paths.read_only; }))
      ep.paths.read_only = *v;
    if (auto v = pick(matched, [](const RuleSpec& r) { return r.paths.symlinks; }))
      ep.paths.symlinks = *v;
    // The server's own state is no caller's, whatever a layer allowed.
    ep.paths.deny.insert(ep.paths.deny.end(), in_.private_dirs.begin(), in_.private_dirs.end());
    resolveLimits(matched, ep);
    std::vector<const RuleSpec*> rules;
    for (const auto* s : matched) rules.push_back(s->rule);
    ep.params = params_.resolve(route.spec.group, rules);
    ep.audit =
        pick(matched, [](const RuleSpec& r) { return r.audit; }).value_or(sdk::AuditLevel::deny);
  }

  static void resolveLimits(const std::vector<const Selector*>& matched, sdk::EndpointPolicy& ep) {
#define ABX_PICK(part, field) \
  ep.part.field = pick(matched, [](const RuleSpec& r) { return r.part.field; })
    ABX_PICK(limits, max_bytes);
    ABX_PICK(limits, max_request_bytes);
    ABX_PICK(limits, max_entries);
    ABX_PICK(limits, max_duration_seconds);
    ABX_PICK(limits, max_output_bytes);
    ABX_PICK(limits, timeout_seconds);
    ABX_PICK(limits, rate_per_minute);
    ABX_PICK(limits, max_concurrency);
#undef ABX_PICK
  }

  // Identities: the legacy token, then auth.tokens of the policy.
  sdk::Status compileIdentities() {
    if (in_.legacy_token) out_->identities.push_back({"legacy", *in_.legacy_token, {"*"}});
    if (!in_.policy) return sdk::Status::ok();
    auto token_digest = in_.token_digest ? in_.token_digest : &environmentTokenDigest;
    const auto& source = in_.policy->source;
    for (std::size_t i = 0; i < in_.policy->tokens.size(); ++i) {
      const auto& t = in_.policy->tokens[i];
      std::string where = "auth.tokens[" + std::to_string(i) + "] (" + t.id + ")";
      TokenIdentity identity{t.id, {}, t.scopes};
      if (t.token_env) {
        auto digest = token_digest(*t.token_env);
        if (!digest)
          return configError(source,
                             where + ": environment variable " + *t.token_env + " is not set");
        identity.digest = *digest;
        out_->secret_env_names.push_back(*t.token_env);
      } else if (t.token_sha256) {
        auto digest = fromHex(*t.token_sha256);
        if (!digest) return configError(source, where + ": token_sha256 is not 64 hex digits");
        identity.digest = *digest;
      }
      for (const auto& existing : out_->identities) {
        if (existing.id == identity.id)
          return configError(source, where + ": duplicate identity id");
        if (existing.digest == identity.digest)
          return configError(source, where + ": the same token as identity '" + existing.id + "'");
      }
      out_->identities.push_back(std::move(identity));
    }
    return sdk::Status::ok();
  }

  const PolicyInputs& in_;
  const RouteTable& routes_;
  DeclaredParams params_;
  std::shared_ptr<CompiledPolicy> out_;
  std::vector<std::string> ids_, group_names_;
  std::deque<RuleSpec> synthesized_;  // rules the layers imply (stable addresses)
  std::vector<Selector> selectors_;
  int order_ = 0;
};

}  // namespace

sdk::Result<std::shared_ptr<const CompiledPolicy>> compilePolicy(const PolicyInputs& in,
                                                                 std::uint64_t revision) {
  return PolicyCompiler(in, revision).compile();
}

}  // namespace abx::kernel
