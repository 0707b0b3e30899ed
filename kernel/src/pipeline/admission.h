// Admission: step 4 of the pipeline — is the matched endpoint enabled, does
// the caller hold its scopes, is it within its rate and concurrency limits.
// PolicyAdmission decides from a CompiledPolicy (every layer merged); an
// unconfigured server runs it with the default layer alone.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/policy.h"
#include "abx/sdk/routes.h"
#include "abx/sdk/status.h"
#include "policy/compiled_policy.h"
#include "routing/route_table.h"
#include "support/api_error.h"

namespace abx::kernel {

struct EndpointState {
  bool enabled = true;
  std::string rule; /**< the rule that decided, e.g. "default:opt-in:browser" */
};

/**
 * Holds one of an endpoint's max_concurrency slots until destroyed.
 * OWNERSHIP: shares its counter, so a lease that leaves the request (a
 * detached stream, a plugin's WebSocket) outlives a reload that frees the
 * admission it came from.
 */
class AdmissionLease {
 public:
  AdmissionLease() = default;
  explicit AdmissionLease(std::shared_ptr<std::atomic<std::uint32_t>> counter)
      : counter_(std::move(counter)) {}
  AdmissionLease(AdmissionLease&& o) noexcept = default;
  AdmissionLease& operator=(AdmissionLease&& o) noexcept {
    release();
    counter_ = std::move(o.counter_);
    return *this;
  }
  ~AdmissionLease() { release(); }

 private:
  void release() {
    if (counter_) counter_->fetch_sub(1, std::memory_order_acq_rel);
    counter_.reset();
  }
  std::shared_ptr<std::atomic<std::uint32_t>> counter_;
};

struct Verdict {
  std::optional<ApiError> error; /**< set: reject with this */
  AdmissionLease lease;          /**< keep until the handler returns */
};

class Admission {
 public:
  virtual ~Admission() = default;
  virtual Verdict admit(const Route& route, const sdk::Identity& caller) const = 0;
  virtual EndpointState state(const Route& route) const = 0;
  virtual const sdk::EndpointPolicy& policy(const Route& route) const = 0;
  virtual const CompiledPolicy& compiled() const = 0;
};

class PolicyAdmission : public Admission {
 public:
  PolicyAdmission(const RouteTable& routes, std::shared_ptr<const CompiledPolicy> compiled);

  Verdict admit(const Route& route, const sdk::Identity& caller) const override;
  EndpointState state(const Route& route) const override;
  const sdk::EndpointPolicy& policy(const Route& route) const override {
    return compiled_->endpoints[route.index];
  }
  const CompiledPolicy& compiled() const override { return *compiled_; }
  const std::shared_ptr<const CompiledPolicy>& shared() const { return compiled_; }

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point updated;
  };
  // Per-endpoint counters; only endpoints with limits ever touch them.
  struct Runtime {
    std::atomic<std::uint32_t> in_flight{0};
    std::mutex mutex;
    std::unordered_map<std::string, Bucket> buckets;  // by identity id
  };
  std::optional<ApiError> takeRateToken(const Route& route, const sdk::EndpointPolicy& policy,
                                        const sdk::Identity& caller) const;

  std::shared_ptr<const CompiledPolicy> compiled_;
  std::vector<std::shared_ptr<Runtime>> runtime_;  // shared with the leases
};

/** The default layer plus ABX_SERVER_ENABLED_GROUPS, with no policy source. */
class DefaultAdmission final : public PolicyAdmission {
 public:
  DefaultAdmission(const RouteTable& routes, const std::vector<GroupRecord>& groups,
                   const std::vector<std::string>& enabled_groups);

  /** Parses the comma list; an unknown group is an error with a did-you-mean hint. */
  static sdk::Result<std::vector<std::string>> parseEnabledGroups(
      std::string_view value, const std::vector<GroupRecord>& groups);
};

/** 403 missing_scope when @p caller lacks one of @p scopes (all required). */
std::optional<ApiError> checkScopes(const Route& route, const std::vector<std::string>& scopes,
                                    const sdk::Identity& caller);
/** The same with the route's own default scopes. */
std::optional<ApiError> checkScopes(const Route& route, const sdk::Identity& caller);

}  // namespace abx::kernel
