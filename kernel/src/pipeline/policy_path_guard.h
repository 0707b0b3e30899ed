// PolicyPathGuard: the PathGuard plugins get. Each call reads the policy in
// force (so a reload applies to the next call) and judges the path with the
// endpoint's `paths` rule under the policy's base dir.
#pragma once

#include "abx/sdk/path_guard.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {

class PolicyPathGuard final : public sdk::PathGuard {
 public:
  explicit PolicyPathGuard(const Pipeline& pipeline) : pipeline_(pipeline) {}

  sdk::PathCheck check(std::string_view endpoint, std::string_view path,
                       sdk::PathOp op) const override;
  sdk::Result<int> open(std::string_view endpoint, std::string_view path, sdk::PathOp op, int flags,
                        int mode) const override;

 private:
  const Pipeline& pipeline_;
};

}  // namespace abx::kernel
