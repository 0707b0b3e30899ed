// Manifest: config/plugins.yaml, then its drop-ins plugins.d/*.yaml in name
// order (entries: name, file, id, enabled, required, override, settings),
// then ABX_AGENTS_ADAPTER_MODULES, merged into the list of plugins to load.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/settings.h"
#include "abx/sdk/status.h"

namespace abx::kernel {

struct ManifestEntry {
  std::string name;
  std::string file;              /**< as written; resolved against the plugin dir */
  std::optional<std::string> id; /**< must equal the plugin's id when given */
  bool enabled = true;
  bool required = true;
  bool override_ = false;
  sdk::Settings settings;
  std::string origin; /**< "manifest", "plugins.d/<file>" or "ABX_AGENTS_ADAPTER_MODULES" */
};

struct Manifest {
  std::string path;
  std::vector<ManifestEntry> entries;
};

/**
 * Reads @p path, then each YAML file of the `<stem>.d` folder beside it in
 * name order, then appends one required entry per comma-separated module of
 * @p adapter_modules. A name seen twice is an error unless the later entry
 * says `override: true`, which replaces the earlier one in place.
 */
sdk::Result<Manifest> loadManifest(const std::string& path,
                                   const std::optional<std::string>& adapter_modules);

/** The plugin dir's absolute path for @p entry's file. */
std::string resolvePluginFile(const ManifestEntry& entry, const std::string& plugin_dir);

}  // namespace abx::kernel
