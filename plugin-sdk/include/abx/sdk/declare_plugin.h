// ABX_DECLARE_PLUGIN: generates the one exported entry symbol of a plugin,
// so its ABI fields always come from the headers it was compiled against.
// Put it alone in the plugin's entry.cpp.
#pragma once

#include <memory>

#include "abx/sdk/abi.h"
#include "abx/sdk/plugin.h"

/**
 * @param factory  a function `std::unique_ptr<abx::sdk::Plugin>(abx::sdk::HostContext&)`
 * @param id       the plugin id string; must equal the manifest's id if given
 * @param version  the plugin's version string
 * @param kind     ABX_KIND_CAPABILITY or ABX_KIND_ADAPTER
 * @param schema   JSON Schema of the manifest `settings` object, or nullptr
 * Nothing here runs at dlopen time: the descriptor is constant-initialised.
 */
#define ABX_DECLARE_PLUGIN(factory, id, version, kind, schema)               \
  namespace {                                                                \
  abx::sdk::Plugin* abx_plugin_create_(abx::sdk::HostContext* host) {        \
    try {                                                                    \
      return (factory)(*host).release();                                     \
    } catch (...) {                                                          \
      return nullptr;                                                        \
    }                                                                        \
  }                                                                          \
  void abx_plugin_destroy_(abx::sdk::Plugin* plugin) {                       \
    try {                                                                    \
      delete plugin;                                                         \
    } catch (...) {                                                          \
    }                                                                        \
  }                                                                          \
  constexpr abx_plugin_info abx_plugin_info_{sizeof(abx_plugin_info),        \
                                             ABX_SDK_ABI_MAJOR,              \
                                             ABX_SDK_ABI_MINOR,              \
                                             ABX_BUILD_FINGERPRINT,          \
                                             (id),                           \
                                             (version),                      \
                                             (kind),                         \
                                             (schema),                       \
                                             &abx_plugin_create_,            \
                                             &abx_plugin_destroy_};          \
  }                                                                          \
  ABX_PLUGIN_EXPORT const abx_plugin_info* abx_plugin_entry(void) noexcept { \
    return &abx_plugin_info_;                                                \
  }
