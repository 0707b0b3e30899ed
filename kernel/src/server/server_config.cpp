#include "server/server_config.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

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
    if (auto v = env("ABX_AGENTS_STATE_DIR"); v && !v->empty())
      c.state_dir = *v;
    else
      c.state_dir = env("HOME").value_or("/tmp") + "/.agent-sandbox";
  }
  if (auto v = env("ABX_PTY_PORT"); v && !v->empty() && c.pty_port == 9001)
    c.pty_port = std::atoi(v->c_str());
  if (auto v = env("ABX_SERVER_TOKEN"); v && !v->empty()) c.token = *v;
  if (auto v = env("ABX_SERVER_ENABLED_GROUPS")) c.enabled_groups = *v;
  if (auto v = env("ABX_AGENTS_ADAPTER_MODULES"); v && !v->empty()) c.adapter_modules = *v;
  if (auto v = env("ABX_SERVER_THREADS"); v && !v->empty()) c.threads = std::atoi(v->c_str());
}

bool isLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

}  // namespace abx::kernel
