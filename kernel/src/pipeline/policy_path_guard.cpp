#include "pipeline/policy_path_guard.h"

#include "policy/path_rules_guard.h"

namespace abx::kernel {
namespace {

struct Scope {
  std::string base_dir;
  sdk::PathRules rules;
};

// An endpoint the policy does not know (a typo in a plugin) gets the
// default rules: the base dir, nothing more.
Scope scopeFor(const Pipeline& pipeline, std::string_view endpoint) {
  const std::shared_ptr<const Dispatch> d = pipeline.current();
  Scope s;
  s.base_dir = d->admission->compiled().base_dir;
  if (const Route* route = d->routes->findEndpoint(endpoint))
    s.rules = d->admission->policy(*route).paths;
  return s;
}

}  // namespace

sdk::PathCheck PolicyPathGuard::check(std::string_view endpoint, std::string_view path,
                                      sdk::PathOp op) const {
  auto s = scopeFor(pipeline_, endpoint);
  return checkPath(s.base_dir, s.rules, path, op);
}

sdk::Result<int> PolicyPathGuard::open(std::string_view endpoint, std::string_view path,
                                       sdk::PathOp op, int flags, int mode) const {
  auto s = scopeFor(pipeline_, endpoint);
  return openPath(s.base_dir, s.rules, path, op, flags, mode);
}

}  // namespace abx::kernel
