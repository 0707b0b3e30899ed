#include "policy/param_rules.h"

#include <algorithm>

#include "policy/yaml_reads.h"
#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

/** "endpoints.shell.params" of "endpoints.shell.params.overwrite". */
std::string parentPath(const RawParam& raw) {
  return raw.path.size() > raw.key.size() ? raw.path.substr(0, raw.path.size() - raw.key.size() - 1)
                                          : raw.path;
}

}  // namespace

DeclaredParams::DeclaredParams(const std::vector<GroupRecord>& groups) {
  for (const auto& g : groups) by_group_[g.spec.name] = &g.spec.params;
}

const std::vector<sdk::ParamSpec>& DeclaredParams::of(const std::string& group) const {
  static const std::vector<sdk::ParamSpec> kNone;
  auto it = by_group_.find(group);
  return it == by_group_.end() ? kNone : *it->second;
}

sdk::Status DeclaredParams::check(const RuleSpec& rule, const std::vector<std::string>& groups,
                                  bool strict_keys, const std::string& source) const {
  if (groups.empty()) return sdk::Status::ok();  // a glob that reaches nothing (a warning)
  for (const auto& raw : rule.params) {
    std::vector<const sdk::ParamSpec*> specs;
    std::vector<std::string> known;
    for (const auto& group : groups) {
      for (const auto& spec : of(group)) {
        known.push_back(spec.key);
        if (spec.key == raw.key) specs.push_back(&spec);
      }
    }
    if (specs.empty()) {
      if (!strict_keys) continue;
      std::string hint = didYouMean(raw.key, known);
      if (known.empty()) hint = " (the groups it applies to declare no parameters)";
      return sdk::Status::error(
          source + ": " + parentPath(raw) + ": unknown key '" + raw.key + "'" + hint,
          "ConfigError");
    }
    for (const auto* spec : specs) {
      try {
        yaml_reads::readParam(*spec, raw.value, raw.path);
      } catch (const yaml_reads::ParseError& e) {
        return sdk::Status::error(source + ": " + e.path + ": " + e.message, "ConfigError");
      }
    }
  }
  return sdk::Status::ok();
}

sdk::Params DeclaredParams::resolve(const std::string& group,
                                    const std::vector<const RuleSpec*>& rules) const {
  sdk::Params out;
  for (const auto& spec : of(group)) {
    bool set = false;
    for (const auto* rule : rules) {
      auto raw = std::find_if(rule->params.begin(), rule->params.end(),
                              [&](const RawParam& p) { return p.key == spec.key; });
      if (raw == rule->params.end()) continue;
      try {
        out.set(spec.key, yaml_reads::readParam(spec, raw->value, raw->path));
        set = true;
      } catch (const yaml_reads::ParseError&) {
        continue;  // checked when the document was added; another group's type
      }
      break;
    }
    if (!set && spec.default_value) out.set(spec.key, *spec.default_value);
  }
  return out;
}

}  // namespace abx::kernel
