// Admission: step 4 of the pipeline — is the matched endpoint enabled, does
// the caller hold its scopes, is it within its limits. DefaultAdmission is
// the default layer (opt-in groups start off) plus ABX_SERVER_ENABLED_GROUPS;
// the policy engine replaces it behind the same interface.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/routes.h"
#include "abx/sdk/status.h"
#include "pipeline/api_error.h"
#include "routing/route_table.h"

namespace abx::kernel {

/** A declared capability group and who declared it. */
struct GroupRecord {
  sdk::GroupSpec spec;
  std::string owner; /**< plugin id, or "core" */
};

struct EndpointState {
  bool enabled = true;
  std::string rule; /**< the rule that decided, e.g. "default:opt-in:browser" */
};

class Admission {
 public:
  virtual ~Admission() = default;
  /** nullopt admits the call; otherwise the rejection to send. */
  virtual std::optional<ApiError> admit(const Route& route, const sdk::Identity& caller) const = 0;
  virtual EndpointState state(const Route& route) const = 0;
};

class DefaultAdmission final : public Admission {
 public:
  /**
   * @param enabled_groups groups ABX_SERVER_ENABLED_GROUPS turned on
   * (already validated by parseEnabledGroups).
   */
  DefaultAdmission(const RouteTable& routes, const std::vector<GroupRecord>& groups,
                   const std::vector<std::string>& enabled_groups);

  std::optional<ApiError> admit(const Route& route, const sdk::Identity& caller) const override;
  EndpointState state(const Route& route) const override;

  /** Parses the comma list; an unknown group is an error with a did-you-mean hint. */
  static sdk::Result<std::vector<std::string>> parseEnabledGroups(
      std::string_view value, const std::vector<GroupRecord>& groups);

 private:
  std::vector<EndpointState> states_;  // indexed by Route::index
};

/** 403 missing_scope when @p caller lacks one of the route's scopes. */
std::optional<ApiError> checkScopes(const Route& route, const sdk::Identity& caller);

}  // namespace abx::kernel
