// ServerConfig: everything `serve` needs, resolved from flags, then
// environment variables, then defaults (see docs/configuration.md).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/log_sink.h"

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
  /** SHA-256 of ABX_SERVER_TOKEN (the variable itself is wiped at start). */
  std::optional<std::array<unsigned char, 32>> token;
  std::optional<std::string> enabled_groups;  /**< ABX_SERVER_ENABLED_GROUPS */
  std::optional<std::string> adapter_modules; /**< ABX_AGENTS_ADAPTER_MODULES */
  bool insecure_no_auth = false;
  std::optional<std::string> policy_file; /**< --policy */
  std::optional<std::string> preset;      /**< --preset */
  std::string preset_dir;                 /**< where <name>.yaml presets live */
  /** server-policy.json of the install's config dir, the last policy source. */
  std::string system_policy_file;
  bool strict = false;   /**< check-config --strict */
  bool checking = false; /**< check-config: plugins bind no port, start no child */
  /** Host names beyond the built-in ones (--allowed-host, ABX_SERVER_ALLOWED_HOSTS). */
  std::vector<std::string> allowed_hosts;
  /** Cross-origin callers allowed (--cors-origin, ABX_SERVER_CORS_ORIGINS). */
  std::vector<std::string> cors_origins;
  /** Children run as this user when the server runs as root (--child-user, ABX_CHILD_USER). */
  std::optional<std::string> child_user;
  int threads = 64;
  /** The HTTP front end's limits (docs/http.md, "Connections and shutdown"). */
  std::size_t max_connections = 16384;           /**< ABX_SERVER_MAX_CONNECTIONS */
  std::size_t max_connections_per_peer = 4096;   /**< ABX_SERVER_MAX_CONNECTIONS_PER_PEER */
  int head_timeout_s = 10;                       /**< ABX_SERVER_HEAD_TIMEOUT_S */
  int drain_timeout_s = 10;                      /**< --drain-timeout, ABX_SERVER_DRAIN_TIMEOUT_S */
  sdk::LogLevel log_level = sdk::LogLevel::info; /**< ABX_LOG_LEVEL */
  LogFormat log_format = LogFormat::text;        /**< ABX_LOG_FORMAT */
  /** One line per request: a file, "-" for stderr, empty for none. */
  std::string access_log;  /**< --access-log, ABX_ACCESS_LOG */
  int idle_timeout_s = 30; /**< ABX_SERVER_IDLE_TIMEOUT_S */
  int io_timeout_s = 60;   /**< ABX_SERVER_IO_TIMEOUT_S */
  std::size_t max_request_bytes = 10u << 20;
};

/** Directory of the running executable (for default manifest/plugin dir). */
std::string executableDir();

/**
 * Fills manifest/plugin_dir/base_dir/state_dir/ports/token from env and
 * defaults. @return the one-line reason when a variable's value is refused
 * (checked as its flag is), else nullopt.
 */
std::optional<std::string> applyEnvironmentDefaults(ServerConfig& config);

/** Reads a decimal integer in [min, max]; @return the reason it is refused, naming @p what. */
std::optional<std::string> readInteger(std::string_view text, const char* what, long long min,
                                       long long max, long long& out);

/** Reads a port number 0-65535; @return the reason it is refused, naming @p what. */
std::optional<std::string> readPort(std::string_view text, const char* what, int& port);

/** "a, b,,c" -> {"a", "b", "c"}. */
std::vector<std::string> commaList(std::string_view text);

/** The default state dir: /var/lib/agent-sandbox when it is (or can be made)
 *  writable, else $XDG_STATE_HOME/agent-sandbox ($HOME/.local/state/...). */
std::string defaultStateDir();

/** True for 127.0.0.0/8, ::1 and "localhost". */
bool isLoopbackHost(const std::string& host);

}  // namespace abx::kernel
