// Readers of YAML values for the policy: each names the value's dotted
// path in its error ("endpoints.shell.limits.max_bytes: ...").
#include "policy/yaml_reads.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "policy/policy_document.h"
#include "support/did_you_mean.h"

namespace abx::kernel::yaml_reads {

// ---- errors ---------------------------------------------------------------

[[noreturn]] void fail(const std::string& path, std::string message) {
  throw ParseError{path, std::move(message)};
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string indexed(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

bool isQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

/** How a value reads in an error message: "a list", "the string 'x'", "'x'". */
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return "null";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Scalar:
      break;
  }
  return (isQuoted(node) ? "the string '" : "'") + node.Scalar() + "'";
}

std::string unknownKey(const std::string& key, const std::vector<std::string>& candidates) {
  return "unknown key '" + key + "'" + didYouMean(key, candidates);
}

// ---- scalar readers -------------------------------------------------------

bool readBool(const YAML::Node& node, const std::string& path) {
  if (node.IsScalar() && !isQuoted(node)) {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  fail(path, "expected true or false, got " + describe(node));
}

std::string readString(const YAML::Node& node, const std::string& path, bool allow_empty) {
  if (!node.IsScalar()) fail(path, "expected a string, got " + describe(node));
  if (!allow_empty && node.Scalar().empty()) fail(path, "must not be empty");
  return node.Scalar();
}

std::vector<std::string> readStringList(const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) fail(path, "expected a list of strings, got " + describe(node));
  std::vector<std::string> out;
  out.reserve(node.size());
  std::size_t i = 0;
  for (const auto& item : node) {
    if (!item.IsScalar()) fail(indexed(path, i), "expected a string, got " + describe(item));
    out.push_back(item.Scalar());
    ++i;
  }
  return out;
}

/** One of @p allowed, with a did-you-mean hint otherwise. */
std::string readChoice(const YAML::Node& node, const std::string& path,
                       const std::vector<std::string>& allowed) {
  if (!node.IsScalar()) fail(path, "expected a string, got " + describe(node));
  const std::string& value = node.Scalar();
  if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return value;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  fail(path,
       "invalid value '" + value + "'" + didYouMean(value, allowed) + "; expected one of " + list);
}

/** A plain (unquoted) decimal integer, optionally signed; nullopt otherwise. */
std::optional<std::int64_t> plainInteger(const YAML::Node& node) {
  if (!node.IsScalar() || isQuoted(node)) return std::nullopt;
  const std::string& s = node.Scalar();
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

namespace {

bool looksNegative(const YAML::Node& node) {
  if (!node.IsScalar()) return false;
  std::string_view s = node.Scalar();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  return !s.empty() && s.front() == '-';
}

}  // namespace

std::uint64_t readSize(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar())
    fail(path, "expected a size (a byte count or a string such as \"5MB\"), got " + describe(node));
  if (looksNegative(node)) fail(path, "must not be negative, got " + describe(node));
  if (auto size = parseSize(node.Scalar())) return *size;
  fail(path, "invalid size '" + node.Scalar() + "'" +
                 "; expected a whole number of bytes such as 1048576, 512KB, 5MB or 1GiB");
}

double readSeconds(const YAML::Node& node, const std::string& path) {
  if (node.IsScalar() && !isQuoted(node) && !node.Scalar().empty()) {
    const std::string& s = node.Scalar();
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(s.c_str(), &end);
    bool numeric = end == s.c_str() + s.size() && errno == 0 && std::isfinite(value) &&
                   s.find_first_of("xXnN") == std::string::npos;  // no hex, nan or inf
    if (numeric) {
      if (value < 0) fail(path, "must not be negative, got " + describe(node));
      return value;
    }
  }
  fail(path, "expected a number of seconds, got " + describe(node));
}

std::uint32_t readPositiveInt(const YAML::Node& node, const std::string& path) {
  auto value = plainInteger(node);
  if (!value) fail(path, "expected a positive integer, got " + describe(node));
  if (*value < 0) fail(path, "must not be negative, got " + describe(node));
  if (*value == 0) fail(path, "must be a positive integer, got 0");
  if (*value > std::numeric_limits<std::uint32_t>::max())
    fail(path, "is too large, got " + describe(node));
  return static_cast<std::uint32_t>(*value);
}

namespace {

std::string bounds(const sdk::ParamSpec& spec) {
  if (spec.min && spec.max)
    return "between " + std::to_string(*spec.min) + " and " + std::to_string(*spec.max);
  if (spec.min) return "at least " + std::to_string(*spec.min);
  return "at most " + std::to_string(*spec.max);
}

std::int64_t readBoundedInteger(const sdk::ParamSpec& spec, const YAML::Node& node,
                                const std::string& path) {
  auto value = plainInteger(node);
  if (!value) fail(path, "expected an integer, got " + describe(node));
  if ((spec.min && *value < *spec.min) || (spec.max && *value > *spec.max))
    fail(path, "must be " + bounds(spec) + ", got " + describe(node));
  return *value;
}

double readNumber(const YAML::Node& node, const std::string& path) {
  if (node.IsScalar() && !isQuoted(node)) {
    const std::string& s = node.Scalar();
    double value = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && end == s.data() + s.size() && std::isfinite(value)) return value;
  }
  fail(path, "expected a number, got " + describe(node));
}

}  // namespace

sdk::ParamValue readParam(const sdk::ParamSpec& spec, const YAML::Node& node,
                          const std::string& path) {
  switch (spec.type) {
    case sdk::ParamType::boolean:
      return readBool(node, path);
    case sdk::ParamType::integer:
      return readBoundedInteger(spec, node, path);
    case sdk::ParamType::number:
      return readNumber(node, path);
    case sdk::ParamType::string:
      return readString(node, path, true);
    case sdk::ParamType::string_list:
      return readStringList(node, path);
    case sdk::ParamType::integer_list:
      break;
  }
  if (!node.IsSequence()) fail(path, "expected a list of integers, got " + describe(node));
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  for (const auto& item : node) out.push_back(readBoundedInteger(spec, item, indexed(path, i++)));
  return out;
}

}  // namespace abx::kernel::yaml_reads
