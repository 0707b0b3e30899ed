#include "loader/plugin_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "loader/settings_schema.h"

namespace abx::kernel {

PluginRecord::~PluginRecord() {
  if (instance) PluginLoader::destroy(*this);
}

std::string_view kindName(std::uint32_t kind) {
  switch (kind) {
    case ABX_KIND_CAPABILITY:
      return "capability";
    case ABX_KIND_ADAPTER:
      return "adapter";
    default:
      return "unknown";
  }
}

std::vector<std::pair<std::string, std::string>> PluginLoader::parseFingerprint(
    std::string_view fp) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t start = 0;
  while (start < fp.size()) {
    std::size_t end = fp.find(';', start);
    if (end == std::string_view::npos) end = fp.size();
    auto part = fp.substr(start, end - start);
    auto eq = part.find('=');
    if (eq != std::string_view::npos)
      out.emplace_back(std::string(part.substr(0, eq)), std::string(part.substr(eq + 1)));
    start = end + 1;
  }
  return out;
}

std::optional<std::string> PluginLoader::compareFingerprints(std::string_view host,
                                                             std::string_view plugin,
                                                             std::string* warning) {
  auto h = parseFingerprint(host);
  auto p = parseFingerprint(plugin);
  auto get = [](const auto& list, const std::string& key) -> std::string {
    for (const auto& [k, v] : list)
      if (k == key) return v;
    return "<missing>";
  };
  for (const auto& [key, value] : h) {
    std::string theirs = get(p, key);
    if (theirs == value) continue;
    if (key == "cc") {
      if (warning) *warning = "built with " + theirs + ", the server with " + value;
      continue;
    }
    return "build fingerprint mismatch on " + key + ": plugin " + theirs + ", server " + value +
           " (rebuild the plugin against this server's SDK and toolchain)";
  }
  return std::nullopt;
}

namespace {

LoadError fail(const PluginRecord& r, std::string stage, std::string message) {
  return LoadError{r.path, std::move(stage), std::move(message)};
}

std::string dlerrorText(const std::exception& e) {
  std::string what = e.what();
  auto pos = what.find("dlerror system message: ");
  if (pos == std::string::npos) return what;
  auto text = what.substr(pos + 24);
  if (auto close = text.rfind(')'); close != std::string::npos) text = text.substr(0, close);
  return text;
}

}  // namespace

std::optional<LoadError> PluginLoader::probe(PluginRecord& r,
                                             const std::vector<std::string>& taken_ids,
                                             const EnvReader& env) {
  if (!std::filesystem::exists(r.path)) return fail(r, "open", "no such file");
  try {
    // NOW: a missing symbol fails here, at boot, not mid-request. LOCAL: two
    // plugins bundling different library versions cannot interpose. NODELETE:
    // code stays mapped even if a record is dropped, so no function pointer
    // handed to the kernel can dangle.
    auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                static_cast<boost::dll::load_mode::type>(RTLD_NODELETE);
    r.library.load(r.path, mode);
  } catch (const std::exception& e) {
    return fail(r, "open", dlerrorText(e));
  }
  if (!r.library.has(ABX_PLUGIN_ENTRY_SYMBOL))
    return fail(r, "entry",
                "no '" ABX_PLUGIN_ENTRY_SYMBOL
                "' symbol: not an agent-sandbox plugin "
                "(declare one with ABX_DECLARE_PLUGIN)");
  const abx_plugin_info* info = nullptr;
  try {
    auto& entry = r.library.get<const abx_plugin_info*()>(ABX_PLUGIN_ENTRY_SYMBOL);
    info = entry();
  } catch (const std::exception& e) {
    return fail(r, "entry", e.what());
  }
  if (!info) return fail(r, "entry", ABX_PLUGIN_ENTRY_SYMBOL "() returned null");
  // The first three fields never move; read no more than both sides know.
  std::memset(&r.info, 0, sizeof r.info);
  std::memcpy(&r.info, info, std::min<std::size_t>(info->struct_size, sizeof r.info));
  if (r.info.abi_major != ABX_SDK_ABI_MAJOR)
    return fail(r, "abi",
                "plugin ABI " + std::to_string(r.info.abi_major) + "." +
                    std::to_string(r.info.abi_minor) + ", server ABI " +
                    std::to_string(ABX_SDK_ABI_MAJOR) + "." + std::to_string(ABX_SDK_ABI_MINOR) +
                    ": the major version must match");
  if (r.info.abi_minor > ABX_SDK_ABI_MINOR)
    return fail(r, "abi",
                "plugin built against a newer SDK (ABI " + std::to_string(r.info.abi_major) + "." +
                    std::to_string(r.info.abi_minor) + ") than the server's (" +
                    std::to_string(ABX_SDK_ABI_MAJOR) + "." + std::to_string(ABX_SDK_ABI_MINOR) +
                    ")");
  if (info->struct_size < offsetof(abx_plugin_info, destroy) + sizeof(void*))
    return fail(r, "abi", "descriptor too small (" + std::to_string(info->struct_size) + " bytes)");
  std::string warning;
  if (auto mismatch =
          compareFingerprints(ABX_BUILD_FINGERPRINT,
                              r.info.build_fingerprint ? r.info.build_fingerprint : "", &warning))
    return fail(r, "fingerprint", *mismatch);
  if (!warning.empty()) r.warnings.push_back(warning);
  if (!r.info.id || !*r.info.id) return fail(r, "entry", "descriptor has no id");
  r.id = r.info.id;
  r.version = r.info.version ? r.info.version : "";
  r.kind = r.info.kind;
  if (r.entry.id && *r.entry.id != r.id)
    return fail(r, "id_mismatch",
                "manifest says id '" + *r.entry.id + "', the file is '" + r.id + "'");
  if (std::find(taken_ids.begin(), taken_ids.end(), r.id) != taken_ids.end())
    return fail(r, "duplicate_id", "another loaded plugin already has id '" + r.id + "'");
  if (!r.info.create || !r.info.destroy) return fail(r, "entry", "descriptor lacks create/destroy");
  auto settings = resolveSettings(r.info.config_schema, r.id, r.entry.settings, env);
  if (!settings) return fail(r, "config", settings.status().message());
  r.settings = std::move(*settings);
  r.state = "probed";
  return std::nullopt;
}

std::optional<LoadError> PluginLoader::start(PluginRecord& r, KernelServices& services,
                                             RouteTable& routes, std::vector<GroupRecord>& groups) {
  // Marks to roll back to if the plugin fails: nothing of a failed plugin
  // (whose code may be half-initialised) stays reachable.
  const std::size_t route_mark = routes.size(), group_mark = groups.size(),
                    command_mark = services.commands.size(),
                    service_mark = services.services.size(),
                    toggle_mark = services.code_toggles.size();
  auto rollback = [&] {
    routes.truncate(route_mark);
    groups.resize(group_mark);
    services.commands.truncate(command_mark);
    services.services.truncate(service_mark);
    services.code_toggles.resize(toggle_mark);
  };
  r.host = std::make_unique<HostContextImpl>(services, r.id, r.settings, routes, groups);
  r.instance = r.info.create(r.host.get());
  if (!r.instance) {
    rollback();
    return fail(r, "create", "create() returned no plugin (it failed or threw)");
  }
  r.host->setRegistering(true);
  sdk::Status status;
  try {
    status = r.instance->start(*r.host);
  } catch (const std::exception& e) {
    status = sdk::Status::error(std::string("start() threw: ") + e.what());
  } catch (...) {
    status = sdk::Status::error("start() threw an unknown exception");
  }
  r.host->setRegistering(false);
  r.groups = r.host->declaredGroups();
  if (!status) {
    rollback();
    r.groups.clear();
    destroy(r);
    return fail(r, "start", status.message());
  }
  r.state = "started";
  return std::nullopt;
}

void PluginLoader::stop(PluginRecord& r) noexcept {
  if (!r.instance || r.stop_called) return;
  r.stop_called = true;
  // Its callback gauges run plugin code: none may run once it stops.
  if (r.host) r.host->dropMetricCallbacks();
  try {
    r.instance->stop();
  } catch (...) {
  }
  if (r.state == "started") r.state = "stopped";
}

void PluginLoader::destroy(PluginRecord& r) noexcept {
  if (!r.instance) return;
  stop(r);
  r.info.destroy(r.instance);
  r.instance = nullptr;
}

}  // namespace abx::kernel
