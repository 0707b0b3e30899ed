// DefinitionReader: how the definition parser reads a field of a ConfigValue
// — checks its kind, expands ${VAR} when the options say so, records a
// credential reference {vault, credential} given for a secret slot — and
// collects every problem with its dotted path instead of stopping at the
// first. The sections of a definition (agent_definition.cpp,
// mcp_definition.cpp) are read with it.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "definition/agent_definition.h"
#include "definition/config_tree.h"
#include "definition/credential_ref.h"

namespace abx::plugins::agents {

/** "prefix.key", or "key" when @p prefix is empty. */
std::string joinPath(std::string_view prefix, std::string_view key);
/** "prefix[i]". */
std::string indexedPath(std::string_view prefix, std::size_t i);

/** One pass over one definition. */
class DefinitionReader {
 public:
  using Kind = ConfigValue::Kind;

  /** @p prefix: the path of the definition itself ("" or e.g. "agents[2]"). */
  DefinitionReader(const DefinitionOptions& options, std::string prefix);

  const DefinitionOptions& options() const { return options_; }
  const std::string& prefix() const { return prefix_; }
  std::vector<DefinitionError> takeErrors() { return std::move(errors_); }
  std::vector<CredentialRef> takeCredentialRefs() { return std::move(refs_); }

  void fail(std::string path, std::string message);
  /** False (and a problem) when @p v is not of @p kind. */
  bool expectKind(const ConfigValue& v, Kind kind, const std::string& path);
  /** Reports members of @p object that are not in @p allowed. */
  void checkKeys(const ConfigValue& object, const std::string& path,
                 std::initializer_list<std::string_view> allowed);
  /**
   * YAML and JSON both let a key repeat; the later value would silently win
   * (or, for YAML, both would be read), so a repeated key is an error.
   */
  void checkDuplicateKeys(const ConfigValue& v, const std::string& path);

  /**
   * A string value, ${VAR}-expanded when the options say so. @p had_placeholder
   * (optional) learns whether the source text held a placeholder.
   */
  std::optional<std::string> string(const ConfigValue& v, const std::string& path,
                                    bool* had_placeholder = nullptr);
  /** Scalars as text (env: {LOG_LEVEL: 3} is "3"); arrays, objects and null are errors. */
  std::optional<std::string> scalarText(const ConfigValue& v, const std::string& path);
  /** A string field that must be given: absent or null "is required". */
  std::optional<std::string> requiredString(const ConfigValue& object, std::string_view key,
                                            const std::string& prefix);
  /** An optional string field: absent or null leaves @p out unchanged. */
  void optionalString(const ConfigValue& object, std::string_view key, const std::string& prefix,
                      std::string& out);
  /** A list of strings; null is an empty one. */
  std::vector<std::string> stringList(const ConfigValue& v, const std::string& path);

  /**
   * A secret slot given as a credential reference {vault, credential}: the
   * reference is recorded (credential_ref.h) and the slot stays empty until a
   * turn starts. False when @p v is not a reference.
   */
  bool credentialRef(const ConfigValue& v, const std::string& path);
  /** optionalString() for a slot that may hold a credential reference. */
  void secretString(const ConfigValue& object, std::string_view key, const std::string& prefix,
                    std::string& out);

 private:
  std::optional<std::string> expand(const std::string& text, const std::string& path,
                                    bool* had_placeholder);

  const DefinitionOptions& options_;
  const std::string prefix_;
  std::vector<DefinitionError> errors_;
  std::vector<CredentialRef> refs_;
};

}  // namespace abx::plugins::agents
