#include "server/server_config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
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

void applyEnvironmentDefaults(ServerConfig& c) {
  std::string exe_dir = executableDir();
  if (c.manifest.empty()) {
    for (const auto& candidate :
         {exe_dir + "/../config/plugins.yaml", exe_dir + "/../etc/agent-sandbox/plugins.yaml",
          std::string("/etc/agent-sandbox/plugins.yaml")}) {
      if (fs::exists(candidate)) {
        c.manifest = fs::weakly_canonical(candidate).string();
        break;
      }
    }
  }
  if (c.preset_dir.empty()) {
    for (const auto& candidate :
         {exe_dir + "/../config/presets", exe_dir + "/../etc/agent-sandbox/presets",
          std::string("/etc/agent-sandbox/presets")}) {
      if (fs::is_directory(candidate)) {
        c.preset_dir = fs::weakly_canonical(candidate).string();
        break;
      }
    }
  }
  if (c.plugin_dir.empty()) {
    if (auto v = env("ABX_PLUGIN_DIR"); v && !v->empty()) {
      c.plugin_dir = *v;
    } else {
      c.plugin_dir = fs::weakly_canonical(exe_dir + "/../lib/agent-sandbox/plugins").string();
    }
  }
  if (auto v = env("ABX_SERVER_BASE_DIR"); v && !v->empty() && c.base_dir == "/home/user")
    c.base_dir = *v;
  if (c.state_dir.empty()) {
    if (auto v = env("ABX_SERVER_STATE_DIR"); v && !v->empty())
      c.state_dir = *v;
    else
      c.state_dir = defaultStateDir();
  }
  if (auto v = env("ABX_PTY_PORT"); v && !v->empty() && c.pty_port == 9001)
    c.pty_port = std::atoi(v->c_str());
  c.token = SecretEnvironment::instance().takeTokenDigest("ABX_SERVER_TOKEN");
  if (auto v = env("ABX_SERVER_ALLOWED_HOSTS")) c.allowed_hosts = commaList(*v);
  if (auto v = env("ABX_SERVER_CORS_ORIGINS")) c.cors_origins = commaList(*v);
  if (auto v = env("ABX_CHILD_USER"); v && !v->empty()) c.child_user = *v;
  if (auto v = env("ABX_SERVER_ENABLED_GROUPS")) c.enabled_groups = *v;
  if (auto v = env("ABX_AGENTS_ADAPTER_MODULES"); v && !v->empty()) c.adapter_modules = *v;
  if (auto v = env("ABX_SERVER_THREADS"); v && !v->empty()) c.threads = std::atoi(v->c_str());
  // Positive integers; anything else keeps the default.
  auto count = [](const char* name, auto& field) {
    if (auto v = env(name); v && !v->empty()) {
      char* end = nullptr;
      long long n = std::strtoll(v->c_str(), &end, 10);
      if (*end == '\0' && n > 0) field = static_cast<std::remove_reference_t<decltype(field)>>(n);
    }
  };
  count("ABX_SERVER_MAX_CONNECTIONS", c.max_connections);
  count("ABX_SERVER_MAX_CONNECTIONS_PER_PEER", c.max_connections_per_peer);
  count("ABX_SERVER_HEAD_TIMEOUT_S", c.head_timeout_s);
  count("ABX_SERVER_IDLE_TIMEOUT_S", c.idle_timeout_s);
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
  // The system location when this process may write there (root, or a
  // package that created it for the service user); never inside $HOME's
  // usual work area, which is the file API's base dir in the images.
  const std::string system_dir = "/var/lib/agent-sandbox";
  const bool usable = fs::is_directory(system_dir) ? ::access(system_dir.c_str(), W_OK | X_OK) == 0
                                                   : ::access("/var/lib", W_OK | X_OK) == 0;
  if (usable) return system_dir;
  if (auto xdg = env("XDG_STATE_HOME"); xdg && xdg->starts_with("/"))
    return *xdg + "/agent-sandbox";
  return env("HOME").value_or("/tmp") + "/.local/state/agent-sandbox";
}

bool isLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

}  // namespace abx::kernel
