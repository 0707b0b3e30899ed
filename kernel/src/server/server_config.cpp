#include "server/server_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <type_traits>

#include "environment/secret_environment.h"

namespace abx::kernel {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  return std::string(v);
}

}  // namespace

std::string executableDir() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

namespace {

// The install layout (kernel/CMakeLists.txt): relative to the binary first,
// so a DESTDIR or moved tree finds its own files, then the absolute place.
// The build tree's own layout (bin/, config/, lib/agent-sandbox/plugins)
// comes before both, so a binary run where it was built uses its build.
std::vector<std::string> configDirs(const std::string& exe_dir) {
  return {exe_dir + "/../config", exe_dir + "/" ABX_INSTALL_CONFIG_DIR_REL, ABX_INSTALL_CONFIG_DIR};
}

std::string firstExisting(const std::vector<std::string>& dirs, const char* name, bool directory) {
  for (const auto& dir : dirs) {
    const std::string candidate = dir + "/" + name;
    if (directory ? fs::is_directory(candidate) : fs::exists(candidate))
      return fs::weakly_canonical(candidate).string();
  }
  return {};
}

std::string defaultPluginDir(const std::string& exe_dir) {
  for (const auto& candidate :
       {exe_dir + "/../lib/agent-sandbox/plugins", exe_dir + "/" ABX_INSTALL_PLUGIN_DIR_REL}) {
    if (fs::is_directory(candidate)) return fs::weakly_canonical(candidate).string();
  }
  return fs::weakly_canonical(exe_dir + "/" ABX_INSTALL_PLUGIN_DIR_REL).string();
}

}  // namespace

std::optional<std::string> readInteger(std::string_view text, const char* what, long long min,
                                       long long max, long long& out) {
  const std::string value(text);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || n < min || n > max)
    return std::string(what) + " must be an integer " + std::to_string(min) + "-" +
           std::to_string(max) + ", got '" + value + "'";
  out = n;
  return std::nullopt;
}

std::optional<std::string> readPort(std::string_view text, const char* what, int& port) {
  long long n = 0;
  if (readInteger(text, what, 0, 65535, n))
    return std::string(what) + " must be a port number 0-65535, got '" + std::string(text) + "'";
  port = static_cast<int>(n);
  return std::nullopt;
}

namespace {

// The numeric variables, each checked like its flag: a bad value is an error.
std::optional<std::string> applyNumericEnvironment(ServerConfig& c) {
  if (auto v = env("ABX_PTY_PORT"); v && !v->empty())
    if (auto error = readPort(*v, "ABX_PTY_PORT", c.pty_port)) return error;
  long long n = 0;
  if (auto v = env("ABX_SERVER_THREADS"); v && !v->empty()) {
    if (auto error = readInteger(*v, "ABX_SERVER_THREADS", 2, 4096, n)) return error;
    c.threads = static_cast<int>(n);
  }
  if (auto v = env("ABX_SERVER_DRAIN_TIMEOUT_S"); v && !v->empty()) {
    if (auto error = readInteger(*v, "ABX_SERVER_DRAIN_TIMEOUT_S", 1, 3600, n)) return error;
    c.drain_timeout_s = static_cast<int>(n);
  }
  auto count = [&](const char* name, auto& field) -> std::optional<std::string> {
    auto v = env(name);
    if (!v || v->empty()) return std::nullopt;
    if (auto error = readInteger(*v, name, 1, INT_MAX, n)) return error;
    field = static_cast<std::remove_reference_t<decltype(field)>>(n);
    return std::nullopt;
  };
  if (auto e = count("ABX_SERVER_MAX_CONNECTIONS", c.max_connections)) return e;
  if (auto e = count("ABX_SERVER_MAX_CONNECTIONS_PER_PEER", c.max_connections_per_peer)) return e;
  if (auto e = count("ABX_SERVER_HEAD_TIMEOUT_S", c.head_timeout_s)) return e;
  if (auto e = count("ABX_SERVER_IDLE_TIMEOUT_S", c.idle_timeout_s)) return e;
  return count("ABX_SERVER_IO_TIMEOUT_S", c.io_timeout_s);
}

}  // namespace

std::optional<std::string> applyEnvironmentDefaults(ServerConfig& c) {
  const std::string exe_dir = executableDir();
  if (c.manifest.empty()) c.manifest = firstExisting(configDirs(exe_dir), "plugins.yaml", false);
  if (c.preset_dir.empty()) c.preset_dir = firstExisting(configDirs(exe_dir), "presets", true);
  if (c.system_policy_file.empty())
    c.system_policy_file = firstExisting(configDirs(exe_dir), "server-policy.json", false);
  if (c.plugin_dir.empty()) {
    if (auto v = env("ABX_PLUGIN_DIR"); v && !v->empty())
      c.plugin_dir = *v;
    else
      c.plugin_dir = defaultPluginDir(exe_dir);
  }
  if (auto v = env("ABX_SERVER_BASE_DIR"); v && !v->empty()) c.base_dir = *v;
  if (c.state_dir.empty()) {
    if (auto v = env("ABX_SERVER_STATE_DIR"); v && !v->empty())
      c.state_dir = *v;
    else
      c.state_dir = defaultStateDir();
  }
  c.token = SecretEnvironment::instance().takeTokenDigest("ABX_SERVER_TOKEN");
  if (auto v = env("ABX_SERVER_ALLOWED_HOSTS")) c.allowed_hosts = commaList(*v);
  if (auto v = env("ABX_SERVER_CORS_ORIGINS")) c.cors_origins = commaList(*v);
  if (auto v = env("ABX_CHILD_USER"); v && !v->empty()) c.child_user = *v;
  if (auto v = env("ABX_SERVER_ENABLED_GROUPS")) c.enabled_groups = *v;
  if (auto v = env("ABX_AGENTS_ADAPTER_MODULES"); v && !v->empty()) c.adapter_modules = *v;
  if (auto v = env("ABX_LOG_LEVEL"); v && !v->empty()) {
    auto level = parseLogLevel(*v);
    if (!level) return "ABX_LOG_LEVEL must be debug, info, warn or error, got '" + *v + "'";
    c.log_level = *level;
  }
  if (auto v = env("ABX_LOG_FORMAT"); v && !v->empty()) {
    auto format = parseLogFormat(*v);
    if (!format) return "ABX_LOG_FORMAT must be text or json, got '" + *v + "'";
    c.log_format = *format;
  }
  if (auto v = env("ABX_ACCESS_LOG"); v && !v->empty()) c.access_log = *v;
  return applyNumericEnvironment(c);
}

std::vector<std::string> commaList(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = std::min(text.find(',', start), text.size());
    auto item = text.substr(start, end - start);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front())))
      item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back())))
      item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

std::string defaultStateDir() {
  // The install's state dir (/var/lib/agent-sandbox for --prefix /usr) when
  // this process may write there (root, or a package that created it for the
  // service user); never inside $HOME's usual work area, which is the file
  // API's base dir in the images.
  const std::string system_dir = ABX_INSTALL_STATE_DIR;
  // Writable where it exists, or where it would be created.
  fs::path existing = system_dir;
  std::error_code ec;
  while (!fs::exists(existing, ec) && existing.has_relative_path())
    existing = existing.parent_path();
  if (fs::is_directory(existing, ec) && ::access(existing.c_str(), W_OK | X_OK) == 0)
    return system_dir;
  if (auto xdg = env("XDG_STATE_HOME"); xdg && xdg->starts_with("/"))
    return *xdg + "/agent-sandbox";
  return env("HOME").value_or("/tmp") + "/.local/state/agent-sandbox";
}

bool isLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

}  // namespace abx::kernel
