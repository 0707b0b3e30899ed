// EndpointPolicy: the merged rule in force for one endpoint — what a handler
// reads for its limits and parameters. Plugins never parse the policy file;
// the kernel resolves the layers and hands each request its endpoint's rule
// (Request::policy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

/** paths: where an endpoint may read or write. */
struct PathRules {
  std::vector<std::string> allow;     /**< globs; empty: the base dir */
  std::vector<std::string> deny;      /**< globs, checked after allow */
  std::vector<std::string> read_only; /**< globs where writes are refused */
  /** "follow" (default: follow, the target must stay inside),
   *  "deny" (any symlink component is refused). */
  std::string symlinks = "follow";
};

/** limits: every field is absent unless some layer set it. */
struct Limits {
  std::optional<std::uint64_t> max_bytes;
  std::optional<std::uint64_t> max_request_bytes;
  std::optional<std::uint64_t> max_entries;
  std::optional<double> max_duration_seconds;
  std::optional<std::uint64_t> max_output_bytes;
  std::optional<double> timeout_seconds;
  std::optional<std::uint32_t> rate_per_minute;
  std::optional<std::uint32_t> max_concurrency;
};

/** The type of a policy parameter, as its group declares it. */
enum class ParamType { boolean, integer, number, string, string_list, integer_list };

/** A parameter's value; the alternative matches the declared ParamType. */
using ParamValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::string>,
                                std::vector<std::int64_t>>;

/**
 * One policy parameter a group declares (GroupSpec::params): the kernel
 * reads it from every layer's `params:` block, refuses unknown keys and bad
 * values with the key's path, merges the layers and hands each endpoint of
 * the group its value. The kernel knows no key of its own.
 */
struct ParamSpec {
  std::string key; /**< snake_case, unique within the group */
  ParamType type = ParamType::string_list;
  std::string description = {}; /**< one line, shown by /capabilities */
  /** Used when no layer sets the key; absent: the endpoint has no value. */
  std::optional<ParamValue> default_value = {};
  /** Bounds of an integer or of each integer_list item, inclusive. */
  std::optional<std::int64_t> min = {};
  std::optional<std::int64_t> max = {};
};

/**
 * params: the values of one endpoint's declared parameters that some layer
 * (or a declared default) set, in declaration order. A key no layer set is
 * absent: "no rule".
 */
class ABX_SDK_API Params {
 public:
  const ParamValue* find(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
  std::optional<std::vector<std::string>> strings(std::string_view key) const;
  std::optional<std::vector<std::int64_t>> integers(std::string_view key) const;

  /** Sets or replaces @p key (the kernel, and tests). */
  void set(std::string key, ParamValue value);
  const std::vector<std::pair<std::string, ParamValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<std::pair<std::string, ParamValue>> entries_;
};

enum class AuditLevel { off, deny, all };

/** The effective rule of one endpoint after every layer was merged. */
struct EndpointPolicy {
  bool enabled = true;
  std::string rule;                /**< the rule that decided `enabled` */
  std::vector<std::string> scopes; /**< all required */
  PathRules paths;
  Limits limits;
  Params params;
  AuditLevel audit = AuditLevel::deny;
};

}  // namespace abx::sdk
