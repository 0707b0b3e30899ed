// Settings: a plugin's settings as the kernel resolved them from its config
// schema: the manifest's `settings:` block, then the environment
// (ABX_<PLUGIN>_<SETTING>, or the names the schema's "x-env" gives), then the
// schema's "default"s; unknown keys and wrong types refused before the plugin
// exists. Plugins read them here and never from the environment.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/version.h"

namespace abx::sdk {

struct Settings {
  /** Scalars as text ("true", "30", "abc"). */
  std::map<std::string, std::string, std::less<>> values;
  /** Sequences of scalars. */
  std::map<std::string, std::vector<std::string>, std::less<>> lists;
  /** Directory of the manifest, for relative paths. */
  std::string manifest_dir;

  ABX_SDK_API std::optional<std::string> get(std::string_view key) const;
  /** A path setting resolved against manifest_dir when relative. */
  ABX_SDK_API std::optional<std::string> path(std::string_view key) const;
  /** Typed reads of settings the schema typed (the kernel checked them);
   *  nullopt when unset or not of that type. */
  ABX_SDK_API std::optional<std::int64_t> integer(std::string_view key) const;
  ABX_SDK_API std::optional<double> number(std::string_view key) const;
  ABX_SDK_API std::optional<bool> boolean(std::string_view key) const;
  ABX_SDK_API std::optional<std::vector<std::string>> list(std::string_view key) const;
};

/** Facts about the host a plugin may need. */
struct HostInfo {
  std::string server_version;
  std::string host; /**< bind address */
  int http_port = 9000;
  int pty_port = 9001;
  std::string base_dir;  /**< ABX_SERVER_BASE_DIR or --base-dir */
  std::string state_dir; /**< where plugins may persist state */
  /**
   * Since ABI 2.1. True under `check-config`: the plugin starts so that its
   * routes and groups can be checked, and binds no port and starts no child
   * (it is stopped right after).
   */
  bool checking = false;
};

}  // namespace abx::sdk
