// PolicyDocument: one policy source as written (a policy file, inline JSON,
// or a preset), parsed from YAML or JSON and checked for unknown keys and bad
// values. Merging the layers into per-endpoint rules is PolicyEngine's job.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/policy.h"
#include "abx/sdk/status.h"

namespace abx::kernel {

/** A `params:` entry as written. Its group's ParamSpec (policy.h) gives it
 *  a type when the policy is compiled against the loaded plugins. */
struct RawParam {
  std::string key;
  std::string path; /**< "endpoints.shell.params.overwrite", for messages */
  YAML::Node value;
};

/** One selector's rule as written: every field is optional. */
struct RuleSpec {
  std::optional<bool> enabled;
  std::optional<std::vector<std::string>> scopes;
  struct Paths {
    std::optional<std::vector<std::string>> allow;
    std::optional<std::vector<std::string>> deny;
    std::optional<std::vector<std::string>> read_only;
    std::optional<std::string> symlinks; /**< "follow" | "deny" */
  } paths;
  sdk::Limits limits;
  std::vector<RawParam> params; /**< in document order; null values left out */
  std::optional<sdk::AuditLevel> audit;
};

/** An auth.tokens entry: exactly one of token_env / token_sha256. */
struct TokenSpec {
  std::string id;
  std::optional<std::string> token_env;
  std::optional<std::string> token_sha256; /**< 64 lower-case hex digits */
  std::vector<std::string> scopes;
};

struct PolicyDocument {
  std::string source; /**< "file:/etc/x.yaml", "env:ABX_SERVER_POLICY", "preset:read-only" */
  std::optional<std::string> preset; /**< default | transfer-only | read-only | hardened | locked */
  std::optional<std::string> base_dir;
  /** groups: {name: bool}, in document order. */
  std::vector<std::pair<std::string, bool>> groups;
  std::optional<RuleSpec> defaults;
  /** endpoints: selector -> rule, in document order. A selector is an
   *  endpoint id, a glob over ids (* ? [..]), "group:<name>" or "@defaults". */
  std::vector<std::pair<std::string, RuleSpec>> endpoints;
  std::vector<TokenSpec> tokens;
  /** audit_log: "stderr" or a file path for the JSONL audit records. */
  std::optional<std::string> audit_log;
};

/**
 * Parses @p text (YAML, or JSON, which YAML reads too). A top-level
 * `server:` block is unwrapped (the template file's shape). Unknown keys at
 * any level fail with a did-you-mean hint and the key's dotted path, e.g.
 * "endpoints.shell.limits: unknown key 'max_byte' (did you mean
 * 'max_bytes'?)". Type errors name the path too. Failure type: ConfigError.
 */
sdk::Result<PolicyDocument> parsePolicy(std::string_view text, std::string source);

/** Reads and parses a file; source becomes "file:<path>". */
sdk::Result<PolicyDocument> loadPolicyFile(const std::string& path);

/**
 * "5MB" (10^6), "5MiB" (2^20), "1GiB", "512KB", "100B", "1048576"; case of the
 * unit is ignored; K/M/G alone mean KiB/MiB/GiB. nullopt on anything else.
 */
std::optional<std::uint64_t> parseSize(std::string_view text);

/** Selector kinds, most specific first. */
enum class SelectorKind { exact = 0, glob = 1, group = 2, defaults = 3 };
SelectorKind selectorKind(std::string_view selector);

/** fnmatch(3)-style glob over endpoint ids (no '/' special case). */
bool globMatch(std::string_view pattern, std::string_view text);

}  // namespace abx::kernel
