#include "openapi/openapi_catalog.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace abx::kernel {
namespace {

constexpr std::string_view kRefPrefix = "#/components/";

// What a fragment's operation may say; the kernel writes the rest.
bool fragmentKey(std::string_view key) {
  return key == "description" || key == "parameters" || key == "requestBody" ||
         key == "responses" || key == "deprecated" || key == "externalDocs" ||
         key.starts_with("x-");
}

bool kernelKey(std::string_view key) {
  return key == "operationId" || key == "summary" || key == "tags" || key == "security";
}

}  // namespace

void collectRefs(const sdk::Json& value, std::vector<std::pair<std::string, std::string>>& out) {
  if (value.isArray()) {
    for (const auto& e : value.elements()) collectRefs(e, out);
    return;
  }
  if (!value.isObject()) return;
  for (const auto& [key, member] : value.members()) {
    if (key == "$ref" && member.isString()) {
      std::string_view ref = member.stringView();
      if (!ref.starts_with(kRefPrefix)) continue;
      ref.remove_prefix(kRefPrefix.size());
      auto slash = ref.find('/');
      if (slash == std::string_view::npos) continue;
      out.emplace_back(std::string(ref.substr(0, slash)), std::string(ref.substr(slash + 1)));
    } else {
      collectRefs(member, out);
    }
  }
}

std::string OpenApiCatalog::fragmentPathFor(const std::string& library_path) {
  std::filesystem::path p(library_path);
  return (p.parent_path() / (p.stem().string() + ".openapi.json")).string();
}

void OpenApiCatalog::addFile(const std::string& owner, const std::string& library_path) {
  const std::string path = fragmentPathFor(library_path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;  // no fragment: generated operations
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    warnings_.push_back("openapi: " + path + ": cannot be read");
    return;
  }
  addText(owner, text.str(), path);
}

void OpenApiCatalog::addText(const std::string& owner, std::string_view text,
                             const std::string& origin) {
  auto parsed = sdk::Json::parse(text);
  if (!parsed) {
    warnings_.push_back("openapi: " + origin + ": " + parsed.status().message());
    return;
  }
  const sdk::Json& doc = *parsed;
  if (doc.get("abx_openapi_fragment").dump() != "1") {
    warnings_.push_back("openapi: " + origin +
                        ": not a fragment (\"abx_openapi_fragment\": 1 missing); ignored");
    return;
  }
  for (const auto& [id, op] : doc.get("operations").members()) {
    if (!op.isObject()) {
      warnings_.push_back("openapi: " + origin + ": operation '" + id + "' is not an object");
      continue;
    }
    for (const auto& key : op.keys()) {
      if (kernelKey(key))
        warnings_.push_back("openapi: " + origin + ": operation '" + id + "': '" + key +
                            "' is written by the server; the fragment's is ignored");
      else if (!fragmentKey(key))
        warnings_.push_back("openapi: " + origin + ": operation '" + id + "': unknown key '" + key +
                            "' ignored");
    }
    if (operations_.count(id)) {
      warnings_.push_back("openapi: " + origin + ": operation '" + id +
                          "' is already described by " + operations_.find(id)->second.origin);
      continue;
    }
    operations_.emplace(id, Operation{owner, origin, op});
  }
  addComponents(doc.get("components"), origin);
}

void OpenApiCatalog::addComponents(const sdk::Json& components, const std::string& origin) {
  for (const auto& [section, entries] : components.members()) {
    auto& known = components_[section];
    for (const auto& [name, definition] : entries.members()) {
      if (known.count(name)) {
        warnings_.push_back("openapi: " + origin + ": component " + section + "/" + name +
                            " is already defined; this definition is dropped");
        continue;
      }
      known.emplace(name, definition);
    }
  }
}

void OpenApiCatalog::check(const RouteTable& routes) {
  for (auto it = operations_.begin(); it != operations_.end();) {
    const Route* route = routes.findEndpoint(it->first);
    if (route && route->owner == it->second.owner) {
      ++it;
      continue;
    }
    warnings_.push_back("openapi: " + it->second.origin + ": operation '" + it->first +
                        "' names no endpoint of " + it->second.owner + "; ignored");
    it = operations_.erase(it);
  }
  std::vector<std::pair<std::string, std::string>> refs;
  for (const auto& [id, op] : operations_) collectRefs(op.body, refs);
  for (const auto& [section, entries] : components_)
    for (const auto& [name, definition] : entries) collectRefs(definition, refs);
  std::set<std::pair<std::string, std::string>> missing;
  for (const auto& [section, name] : refs) {
    auto s = components_.find(section);
    if (s == components_.end() || !s->second.count(name)) missing.emplace(section, name);
  }
  for (const auto& [section, name] : missing)
    warnings_.push_back("openapi: #/components/" + section + "/" + name + " is referred to but " +
                        "no fragment defines it");
}

const sdk::Json* OpenApiCatalog::operation(std::string_view endpoint) const {
  auto it = operations_.find(endpoint);
  return it == operations_.end() ? nullptr : &it->second.body;
}

}  // namespace abx::kernel
