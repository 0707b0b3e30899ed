#include "definition/definition_reader.h"

#include <utility>

#include "definition/env_expansion.h"

namespace abx::plugins::agents {

std::string joinPath(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  return std::string(prefix) + "." + std::string(key);
}

std::string indexedPath(std::string_view prefix, std::size_t i) {
  return std::string(prefix) + "[" + std::to_string(i) + "]";
}

DefinitionReader::DefinitionReader(const DefinitionOptions& options, std::string prefix)
    : options_(options), prefix_(std::move(prefix)) {}

void DefinitionReader::fail(std::string path, std::string message) {
  errors_.push_back({std::move(path), std::move(message)});
}

bool DefinitionReader::expectKind(const ConfigValue& v, Kind kind, const std::string& path) {
  if (v.kind == kind) return true;
  fail(path, "must be " + std::string(kind == Kind::array || kind == Kind::object ? "an " : "a ") +
                 std::string(kindName(kind)) + " (got " + std::string(kindName(v.kind)) + ")");
  return false;
}

void DefinitionReader::checkKeys(const ConfigValue& object, const std::string& path,
                                 std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.members) {
    bool known = false;
    for (auto a : allowed) known = known || key == a;
    if (!known) fail(joinPath(path, key), "unknown key");
  }
}

void DefinitionReader::checkDuplicateKeys(const ConfigValue& v, const std::string& path) {
  if (v.kind == Kind::array) {
    for (std::size_t i = 0; i < v.items.size(); ++i)
      checkDuplicateKeys(v.items[i], indexedPath(path, i));
  }
  if (v.kind != Kind::object) return;
  for (std::size_t i = 0; i < v.members.size(); ++i) {
    const auto& key = v.members[i].first;
    for (std::size_t j = 0; j < i; ++j)
      if (v.members[j].first == key) {
        fail(joinPath(path, key), "duplicate key");
        break;
      }
    checkDuplicateKeys(v.members[i].second, joinPath(path, key));
  }
}

std::optional<std::string> DefinitionReader::string(const ConfigValue& v, const std::string& path,
                                                    bool* had_placeholder) {
  if (!expectKind(v, Kind::string, path)) return std::nullopt;
  return expand(v.text, path, had_placeholder);
}

std::optional<std::string> DefinitionReader::scalarText(const ConfigValue& v,
                                                        const std::string& path) {
  if (v.kind == Kind::string) return expand(v.text, path, nullptr);
  if (v.kind == Kind::null || !v.isScalar()) {
    fail(path, "must be a string (got " + std::string(kindName(v.kind)) + ")");
    return std::nullopt;
  }
  return v.text;
}

std::optional<std::string> DefinitionReader::requiredString(const ConfigValue& object,
                                                            std::string_view key,
                                                            const std::string& prefix) {
  const std::string path = joinPath(prefix, key);
  const ConfigValue* v = object.find(key);
  if (v == nullptr || v->kind == Kind::null) {
    fail(path, "is required");
    return std::nullopt;
  }
  return string(*v, path);
}

void DefinitionReader::optionalString(const ConfigValue& object, std::string_view key,
                                      const std::string& prefix, std::string& out) {
  const ConfigValue* v = object.find(key);
  if (v == nullptr || v->kind == Kind::null) return;
  if (auto s = string(*v, joinPath(prefix, key))) out = std::move(*s);
}

std::vector<std::string> DefinitionReader::stringList(const ConfigValue& v,
                                                      const std::string& path) {
  std::vector<std::string> out;
  if (v.kind == Kind::null) return out;
  if (!expectKind(v, Kind::array, path)) return out;
  for (std::size_t i = 0; i < v.items.size(); ++i)
    if (auto s = string(v.items[i], indexedPath(path, i))) out.push_back(std::move(*s));
  return out;
}

bool DefinitionReader::credentialRef(const ConfigValue& v, const std::string& path) {
  if (v.kind != Kind::object || (!v.find("vault") && !v.find("credential"))) return false;
  checkKeys(v, path, {"vault", "credential"});
  CredentialRef ref;
  ref.slot =
      path.size() > prefix_.size() && !prefix_.empty() ? path.substr(prefix_.size() + 1) : path;
  for (auto [key, out] : {std::pair{"vault", &ref.vault}, {"credential", &ref.credential}}) {
    const ConfigValue* part = v.find(key);
    if (part == nullptr || part->kind == Kind::null) {
      fail(joinPath(path, key), "is required in a credential reference");
      continue;
    }
    if (!expectKind(*part, Kind::string, joinPath(path, key))) continue;
    if (part->text.empty()) fail(joinPath(path, key), "must not be empty");
    *out = part->text;
  }
  refs_.push_back(std::move(ref));
  return true;
}

void DefinitionReader::secretString(const ConfigValue& object, std::string_view key,
                                    const std::string& prefix, std::string& out) {
  if (const ConfigValue* v = object.find(key); v && credentialRef(*v, joinPath(prefix, key)))
    return;
  optionalString(object, key, prefix, out);
}

std::optional<std::string> DefinitionReader::expand(const std::string& text,
                                                    const std::string& path,
                                                    bool* had_placeholder) {
  if (!options_.expand_placeholders) {
    // Unexpanded text (HTTP bodies): a "${" still marks what the author meant as a secret.
    if (had_placeholder) *had_placeholder = text.find("${") != std::string::npos;
    return text;
  }
  auto expanded = expandPlaceholders(text, options_.env);
  if (!expanded.error.empty()) {
    fail(path, expanded.error);
    return std::nullopt;
  }
  if (had_placeholder) *had_placeholder = expanded.had_placeholder;
  return std::move(expanded.value);
}

}  // namespace abx::plugins::agents
