// The policy parameters the loaded groups declare (GroupSpec::params): the
// kernel checks every document's `params:` entries against them and gives
// each endpoint the values of its own group's keys. No key is the kernel's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "abx/sdk/policy.h"
#include "abx/sdk/status.h"
#include "policy/policy_document.h"
#include "routing/route_table.h"

namespace abx::kernel {

class DeclaredParams {
 public:
  explicit DeclaredParams(const std::vector<GroupRecord>& groups);

  /**
   * Checks @p rule's entries against the parameters of @p groups (the groups
   * whose endpoints its selector reaches). A key none of them declares is an
   * error with a did-you-mean hint when @p strict_keys (the operator's
   * policy), and ignored otherwise (a preset written for plugins this image
   * may not have). A value must read as every declaring group's type.
   * Messages: "<source>: <path>: ...", type ConfigError.
   */
  sdk::Status check(const RuleSpec& rule, const std::vector<std::string>& groups, bool strict_keys,
                    const std::string& source) const;

  /**
   * The values of @p group's parameters for one endpoint: per declared key,
   * the first of @p rules (most specific first) that sets it, else the
   * declared default, else absent.
   */
  sdk::Params resolve(const std::string& group, const std::vector<const RuleSpec*>& rules) const;

  /** Every group's declarations, by group name. */
  const std::vector<sdk::ParamSpec>& of(const std::string& group) const;

 private:
  std::map<std::string, const std::vector<sdk::ParamSpec>*, std::less<>> by_group_;
};

}  // namespace abx::kernel
