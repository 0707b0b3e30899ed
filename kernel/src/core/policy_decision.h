// PolicyDecision: what the server would answer to a hypothetical call —
// enabled, allowed, the rule that decided and why — computed from the policy
// alone (paths judged lexically, the filesystem never consulted). Both
// POST /capabilities/check and `check-config --explain` use it, so they
// cannot disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/json.h"
#include "abx/sdk/path_guard.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {

struct PolicyDecision {
  std::string endpoint;
  bool enabled = true;
  bool allowed = true;
  std::string rule;   /**< the rule that decided enabled */
  std::string reason; /**< "" when allowed, else the error code */
  int status = 200;   /**< what the call would answer at admission/path time */
  std::vector<std::string> scopes;
  std::optional<std::string> path; /**< the judged path, if one was asked */
};

/**
 * @param caller the identity whose scopes count
 * @param path optional: judged with the endpoint's paths rule for @p op
 */
PolicyDecision decide(const Dispatch& dispatch, const Route& route, const sdk::Identity& caller,
                      const std::optional<std::string>& path, sdk::PathOp op);

std::string decisionJson(const PolicyDecision& decision);

/** The effective rule as JSON: scopes, limits, paths, params, audit. */
std::string endpointPolicyJson(const sdk::EndpointPolicy& policy);

/** A group's declared parameters as a JSON array of {key, type,
 *  description, default?, min?, max?} (GET /capabilities, check-config). */
void writeDeclaredParams(sdk::JsonWriter& w, const std::vector<sdk::ParamSpec>& params);

/** "read", "write", "remove"/"delete", "list" -> PathOp; nullopt otherwise. */
std::optional<sdk::PathOp> parsePathOp(std::string_view op);

}  // namespace abx::kernel
