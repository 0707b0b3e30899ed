// EndpointPolicy: the merged rule in force for one endpoint — what a handler
// reads for its limits and parameters. Plugins never parse the policy file;
// the kernel resolves the layers and hands each request its endpoint's rule
// (Request::policy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/** params: per-endpoint parameter rules; absent lists mean "no rule". */
struct Params {
  std::optional<bool> overwrite;
  std::optional<std::vector<std::string>> allow_extensions;
  std::optional<std::vector<std::string>> deny_extensions;
  std::optional<std::vector<std::string>> allow_commands;
  std::optional<std::vector<std::string>> deny_commands;
  std::optional<std::vector<std::string>> languages;
  std::optional<std::vector<std::int64_t>> allowed_signals;
  std::optional<std::vector<std::string>> url_allow;
  std::optional<std::vector<std::string>> url_deny;
  std::optional<bool> block_private_networks;
  std::optional<std::vector<std::string>> shells;
  std::optional<std::vector<std::string>> env_deny;
  std::optional<std::vector<std::string>> allow_vars;
  std::optional<std::vector<std::string>> deny_vars;
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
