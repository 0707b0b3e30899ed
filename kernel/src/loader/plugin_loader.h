// PluginLoader: opens a plugin .so with Boost.DLL (RTLD_NOW | RTLD_LOCAL),
// checks its descriptor (entry, ABI, fingerprint, id, settings), creates and
// starts it. Each failure is a LoadError naming the file, the stage and the
// reason. Libraries are never unloaded.
#pragma once

#include <boost/dll/shared_library.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abx/sdk/abi.h"
#include "abx/sdk/plugin.h"
#include "loader/host_context_impl.h"
#include "loader/manifest.h"
#include "loader/settings_schema.h"

namespace abx::kernel {

struct LoadError {
  std::string file;
  std::string
      stage; /**< open, entry, abi, fingerprint, id_mismatch, duplicate_id, config, create, start */
  std::string message;
  std::string line() const { return file + ": " + stage + ": " + message; }
};

struct PluginRecord {
  ManifestEntry entry;
  std::string path;  /**< absolute file */
  std::string state; /**< disabled | failed | probed | started | stopped */
  std::string id;
  std::string version;
  std::uint32_t kind = 0;
  std::optional<LoadError> error;
  std::vector<std::string> warnings;
  std::vector<std::string> groups;
  /** What the plugin runs with: entry.settings plus environment and defaults. */
  sdk::Settings settings;

  // Declared before the instance so the instance is destroyed first; the
  // library itself stays mapped until exit (the kernel keeps records alive).
  boost::dll::shared_library library;
  abx_plugin_info info{};
  std::unique_ptr<HostContextImpl> host;
  sdk::Plugin* instance = nullptr;
  bool stop_called = false;

  PluginRecord() = default;
  PluginRecord(PluginRecord&&) = default;
  PluginRecord& operator=(PluginRecord&&) = default;
  ~PluginRecord();
};

class PluginLoader {
 public:
  /**
   * open -> entry -> abi -> fingerprint -> id_mismatch -> duplicate_id ->
   * config (settings resolved, see settings_schema.h). On success record.state is "probed".
   */
  static std::optional<LoadError> probe(PluginRecord& record,
                                        const std::vector<std::string>& taken_ids,
                                        const EnvReader& env = processEnvironment);
  /** create -> start. On success record.state is "started". */
  static std::optional<LoadError> start(PluginRecord& record, KernelServices& services,
                                        RouteTable& routes, std::vector<GroupRecord>& groups);
  /**
   * Plugin::stop() (once); the instance stays until destroy(). A server
   * stops every plugin before it destroys any: a plugin still running (the
   * agents' turn workers) may use what another provides (an adapter).
   */
  static void stop(PluginRecord& record) noexcept;
  /** stop() if not yet, then the plugin's destroy; the library stays mapped. */
  static void destroy(PluginRecord& record) noexcept;

  /** "kind-name" map of a fingerprint string. */
  static std::vector<std::pair<std::string, std::string>> parseFingerprint(std::string_view fp);
  /** nullopt if compatible; otherwise the mismatch. Compiler differences go to @p warning. */
  static std::optional<std::string> compareFingerprints(std::string_view host,
                                                        std::string_view plugin,
                                                        std::string* warning);
};

std::string_view kindName(std::uint32_t kind);

}  // namespace abx::kernel
