#include "loader/manifest.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

#include "support/did_you_mean.h"

namespace abx::kernel {
namespace {

namespace fs = std::filesystem;

sdk::Status bad(const std::string& path, const std::string& message) {
  return sdk::Status::error(path + ": " + message, "ConfigError");
}

bool readBool(const YAML::Node& node, const char* key, bool fallback, std::string& error) {
  if (!node[key]) return fallback;
  try {
    return node[key].as<bool>();
  } catch (const YAML::Exception&) {
    error = std::string("'") + key + "' must be true or false";
    return fallback;
  }
}

std::optional<std::string> readSettings(const YAML::Node& node, sdk::Settings& out) {
  if (!node) return std::nullopt;
  if (!node.IsMap()) return "'settings' must be a mapping";
  for (const auto& kv : node) {
    auto key = kv.first.as<std::string>();
    const auto& value = kv.second;
    if (value.IsScalar()) {
      out.values[key] = value.as<std::string>();
    } else if (value.IsSequence()) {
      auto& list = out.lists[key];
      for (const auto& item : value) {
        if (!item.IsScalar()) return "settings." + key + ": list items must be scalars";
        list.push_back(item.as<std::string>());
      }
    } else if (value.IsNull()) {
      continue;
    } else {
      return "settings." + key + ": nested mappings are not supported";
    }
  }
  return std::nullopt;
}

// Appends @p entry, or replaces the earlier one of its name when it says
// `override: true`.
sdk::Status addEntry(Manifest& manifest, const std::string& path, ManifestEntry entry) {
  for (auto& existing : manifest.entries) {
    if (existing.name != entry.name) continue;
    if (!entry.override_)
      return bad(path, "plugin '" + entry.name + "' (" + entry.origin +
                           ") is already defined; add 'override: true' to replace it");
    existing = std::move(entry);
    return sdk::Status::ok();
  }
  manifest.entries.push_back(std::move(entry));
  return sdk::Status::ok();
}

sdk::Result<ManifestEntry> readEntry(const YAML::Node& node, const std::string& path,
                                     const std::string& where) {
  static const std::vector<std::string> kEntryKeys = {"name",     "file",     "id",      "enabled",
                                                      "required", "override", "settings"};
  if (!node.IsMap()) return bad(path, where + " must be a mapping");
  for (const auto& kv : node) {
    auto key = kv.first.as<std::string>();
    if (std::find(kEntryKeys.begin(), kEntryKeys.end(), key) == kEntryKeys.end())
      return bad(path, where + ": unknown key '" + key + "'" + didYouMean(key, kEntryKeys));
  }
  ManifestEntry entry;
  if (!node["name"] || !node["name"].IsScalar()) return bad(path, where + ": 'name' is required");
  if (!node["file"] || !node["file"].IsScalar()) return bad(path, where + ": 'file' is required");
  entry.name = node["name"].as<std::string>();
  entry.file = node["file"].as<std::string>();
  if (node["id"]) entry.id = node["id"].as<std::string>();
  std::string error;
  entry.enabled = readBool(node, "enabled", true, error);
  entry.required = readBool(node, "required", true, error);
  entry.override_ = readBool(node, "override", false, error);
  if (!error.empty()) return bad(path, where + " (" + entry.name + "): " + error);
  if (auto e = readSettings(node["settings"], entry.settings))
    return bad(path, where + " (" + entry.name + "): " + *e);
  return entry;
}

// The `plugins` list of one parsed manifest file, into @p manifest.
sdk::Status readPlugins(Manifest& manifest, const YAML::Node& root, const std::string& path,
                        const std::string& origin, const std::string& settings_dir) {
  static const std::vector<std::string> kTopKeys = {"plugins"};
  if (root && !root.IsNull()) {
    if (!root.IsMap()) return bad(path, "the manifest must be a mapping with a 'plugins' list");
    for (const auto& kv : root) {
      auto key = kv.first.as<std::string>();
      if (key != "plugins")
        return bad(path, "unknown key '" + key + "'" + didYouMean(key, kTopKeys));
    }
  }
  YAML::Node plugins = root ? root["plugins"] : YAML::Node();
  if (plugins && !plugins.IsNull() && !plugins.IsSequence())
    return bad(path, "'plugins' must be a list");
  std::size_t index = 0;
  for (const auto& node : plugins) {
    auto entry = readEntry(node, path, "plugins[" + std::to_string(index++) + "]");
    if (!entry) return entry.status();
    entry->origin = origin;
    entry->settings.manifest_dir = settings_dir;
    if (auto s = addEntry(manifest, path, std::move(entry).value()); !s) return s;
  }
  return sdk::Status::ok();
}

// Reads one manifest file's `plugins` list into @p manifest. Relative
// settings paths resolve against @p settings_dir (the main manifest's
// directory, for a drop-in too).
sdk::Status readManifestFile(Manifest& manifest, const std::string& path, const std::string& origin,
                             const std::string& settings_dir) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return bad(path, "cannot read the plugin manifest");
  } catch (const YAML::Exception& e) {
    return bad(path, std::string("invalid YAML: ") + e.what());
  }
  // yaml-cpp throws on shapes the checks below do not foresee (a mapping
  // as a key, a list as an id): still an error naming this file, not an
  // exception out of the server's start.
  try {
    return readPlugins(manifest, root, path, origin, settings_dir);
  } catch (const YAML::Exception& e) {
    return bad(path, std::string("unexpected YAML: ") + e.what());
  }
}

// <stem>.d/*.yaml beside the manifest, in name order: what a plugin package
// adds without editing the one file an operator owns.
std::vector<fs::path> dropIns(const fs::path& manifest) {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path dir = manifest.parent_path() / (manifest.stem().string() + ".d");
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const auto ext = item.path().extension();
    if ((ext == ".yaml" || ext == ".yml") && item.is_regular_file(ec)) out.push_back(item.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

sdk::Status addAdapterModules(Manifest& manifest, std::string_view list, const std::string& dir) {
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string file(list.substr(start, end - start));
    start = end + 1;
    while (!file.empty() && file.front() == ' ') file.erase(file.begin());
    while (!file.empty() && file.back() == ' ') file.pop_back();
    if (file.empty()) continue;
    ManifestEntry entry;
    entry.origin = "ABX_AGENTS_ADAPTER_MODULES";
    entry.file = file;
    entry.name = fs::path(file).stem().string();
    entry.required = true;
    entry.settings.manifest_dir = dir;
    if (auto s = addEntry(manifest, manifest.path, std::move(entry)); !s) return s;
  }
  return sdk::Status::ok();
}

}  // namespace

sdk::Result<Manifest> loadManifest(const std::string& path,
                                   const std::optional<std::string>& adapter_modules) {
  Manifest manifest;
  manifest.path = path;
  const fs::path absolute = fs::absolute(fs::path(path));
  const std::string dir = absolute.parent_path().string();
  if (auto s = readManifestFile(manifest, path, "manifest", dir); !s) return s;
  for (const auto& drop_in : dropIns(absolute)) {
    const std::string origin =
        drop_in.parent_path().filename().string() + "/" + drop_in.filename().string();
    if (auto s = readManifestFile(manifest, drop_in.string(), origin, dir); !s) return s;
  }
  if (adapter_modules) {
    if (auto s = addAdapterModules(manifest, *adapter_modules, dir); !s) return s;
  }
  return manifest;
}

std::string resolvePluginFile(const ManifestEntry& entry, const std::string& plugin_dir) {
  fs::path file(entry.file);
  if (file.is_absolute()) return file.lexically_normal().string();
  return fs::absolute(fs::path(plugin_dir) / file).lexically_normal().string();
}

}  // namespace abx::kernel
