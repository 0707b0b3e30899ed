// ServerConfig: everything `serve` needs, resolved from flags, then
// environment variables, then defaults (see docs/configuration.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace abx::kernel {

struct ServerConfig {
  std::string host = "127.0.0.1";
  int port = 9000;
  int pty_port = 9001;
  std::string manifest; /**< empty: none found; the server runs core only */
  bool manifest_explicit = false;
  std::string plugin_dir;
  std::string base_dir = "/home/user";
  std::string state_dir;
  std::optional<std::string> token;           /**< ABX_SERVER_TOKEN */
  std::optional<std::string> enabled_groups;  /**< ABX_SERVER_ENABLED_GROUPS */
  std::optional<std::string> adapter_modules; /**< ABX_AGENTS_ADAPTER_MODULES */
  bool insecure_no_auth = false;
  std::optional<std::string> policy_file; /**< --policy */
  std::optional<std::string> preset;      /**< --preset */
  std::string preset_dir;                 /**< where <name>.yaml presets live */
  bool strict = false;                    /**< check-config --strict */
  int threads = 64;
  std::size_t max_request_bytes = 10u << 20;
};

/** Directory of the running executable (for default manifest/plugin dir). */
std::string executableDir();

/** Fills manifest/plugin_dir/base_dir/state_dir/ports/token from env and defaults. */
void applyEnvironmentDefaults(ServerConfig& config);

/** True for 127.0.0.0/8, ::1 and "localhost". */
bool isLoopbackHost(const std::string& host);

}  // namespace abx::kernel
