#include "file_rules.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>
#include <vector>

#include "files_vocabulary.h"
namespace abx::plugins::files {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool hasSuffix(const std::string& name_lower, std::string_view ext) {
  std::string e = lower(ext);
  if (e.empty()) return false;
  if (e.front() != '.') e.insert(e.begin(), '.');
  return name_lower.size() > e.size() && name_lower.ends_with(e);
}

bool anySuffix(const std::string& name_lower, const std::vector<std::string>& exts) {
  return std::any_of(exts.begin(), exts.end(),
                     [&](const std::string& e) { return hasSuffix(name_lower, e); });
}

}  // namespace

std::uint64_t uploadLimit(const sdk::Settings& settings) {
  auto bytes = settings.integer("max_upload_size");
  return bytes && *bytes > 0 ? static_cast<std::uint64_t>(*bytes) : kDefaultUploadLimit;
}

std::optional<std::uint64_t> policyByteLimit(const sdk::Request& request) {
  return request.policy ? request.policy->limits.max_bytes : std::nullopt;
}

std::uint64_t byteLimit(const sdk::Request& request, std::uint64_t builtin) {
  auto p = policyByteLimit(request);
  return p ? std::min(*p, builtin) : builtin;
}

std::uint64_t entryLimit(const sdk::Request& request, std::uint64_t builtin) {
  if (!request.policy || !request.policy->limits.max_entries) return builtin;
  return std::min(*request.policy->limits.max_entries, builtin);
}

bool overwriteAllowed(const sdk::Request& request) {
  return !request.policy || request.policy->params.boolean(kOverwrite).value_or(true);
}

std::optional<sdk::Response> checkExtension(const sdk::Request& request, std::string_view name,
                                            std::string_view prefix) {
  if (!request.policy) return std::nullopt;
  const auto& params = request.policy->params;
  std::string n = lower(name);
  bool ok = true;
  if (auto allow = params.strings(kAllowExtensions); allow && !anySuffix(n, *allow)) ok = false;
  if (auto deny = params.strings(kDenyExtensions); deny && anySuffix(n, *deny)) ok = false;
  if (ok) return std::nullopt;
  return sdk::Response::error(
      403, std::string(prefix) + "File extension not allowed: " + std::string(name),
      "PermissionError", "extension_not_allowed");
}

sdk::Response tooLarge(std::string_view message) {
  return sdk::Response::error(413, message, "ValueError", "file_too_large");
}

sdk::Response fileExists(std::string_view path, std::string_view prefix) {
  return sdk::Response::error(409, std::string(prefix) + "File exists: " + std::string(path),
                              "FileExistsError", "file_exists");
}

}  // namespace abx::plugins::files
