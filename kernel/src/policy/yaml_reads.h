// Readers of YAML values for the policy document and its parameters. Each
// throws ParseError naming the value's dotted path; parsePolicy and the
// parameter reader turn it into a Status.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/policy.h"

namespace abx::kernel::yaml_reads {

struct ParseError {
  std::string path;
  std::string message;
};

[[noreturn]] void fail(const std::string& path, std::string message);
std::string join(const std::string& path, const std::string& key);
std::string indexed(const std::string& path, std::size_t i);
bool isQuoted(const YAML::Node& node);
/** How a value reads in an error message: "a list", "the string 'x'", "'x'". */
std::string describe(const YAML::Node& node);
std::string unknownKey(const std::string& key, const std::vector<std::string>& candidates);

/** Walks a mapping in document order; @p handle returns false for unknown keys. */
template <class Handler>
void eachKey(const YAML::Node& node, const std::string& path,
             const std::vector<std::string>& candidates, Handler&& handle) {
  if (!node.IsMap()) fail(path, "expected a mapping, got " + describe(node));
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail(path, "keys must be strings, got " + describe(kv.first));
    const std::string& key = kv.first.Scalar();
    if (!handle(key, kv.second)) fail(path, unknownKey(key, candidates));
  }
}

bool readBool(const YAML::Node& node, const std::string& path);
std::string readString(const YAML::Node& node, const std::string& path, bool allow_empty = false);
std::vector<std::string> readStringList(const YAML::Node& node, const std::string& path);
/** One of @p allowed, with a did-you-mean hint otherwise. */
std::string readChoice(const YAML::Node& node, const std::string& path,
                       const std::vector<std::string>& allowed);
/** A plain (unquoted) decimal integer, optionally signed; nullopt otherwise. */
std::optional<std::int64_t> plainInteger(const YAML::Node& node);
std::uint64_t readSize(const YAML::Node& node, const std::string& path);
double readSeconds(const YAML::Node& node, const std::string& path);
std::uint32_t readPositiveInt(const YAML::Node& node, const std::string& path);
/** A declared policy parameter's value, read as its spec's type and bounds. */
sdk::ParamValue readParam(const sdk::ParamSpec& spec, const YAML::Node& node,
                          const std::string& path);

}  // namespace abx::kernel::yaml_reads
