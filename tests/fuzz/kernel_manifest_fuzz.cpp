// kernel_fuzz sub-target: the plugin manifest reader (loadManifest: the
// YAML file, then ABX_AGENTS_ADAPTER_MODULES).
//
// Input: the manifest text, then optionally '\x01' and the adapter module
// list. The text is written to a file under $TMPDIR (run.sh points it into
// the build dir). Checked: no exception escapes (the server would die at
// start-up instead of naming the file), an error names the file, a loaded
// manifest has unique plugin names, the adapter modules come last and
// required, and loading the same file again gives the same entries.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "loader/manifest.h"

namespace abx::fuzz {
namespace {

const std::string& manifestPath() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/manifest-" + std::to_string(::getpid()) +
           ".yaml";
  }();
  return path;
}

bool sameEntries(const kernel::Manifest& a, const kernel::Manifest& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const auto& x = a.entries[i];
    const auto& y = b.entries[i];
    if (x.name != y.name || x.file != y.file || x.id != y.id || x.enabled != y.enabled ||
        x.required != y.required || x.origin != y.origin ||
        x.settings.values != y.settings.values || x.settings.lists != y.settings.lists)
      return false;
  }
  return true;
}

}  // namespace

void fuzzManifest(std::string_view data) {
  const auto cut = data.find('\x01');
  const std::string_view text = data.substr(0, cut);
  std::optional<std::string> modules;
  if (cut != std::string_view::npos) modules = std::string(data.substr(cut + 1));
  {
    std::ofstream out(manifestPath(), std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  auto first = kernel::loadManifest(manifestPath(), modules);
  if (!first) {
    check(first.status().message().find(manifestPath()) != std::string::npos,
          "a manifest error names the file", data);
    return;
  }
  const auto& entries = first->entries;
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i + 1; j < entries.size(); ++j)
      check(entries[i].name != entries[j].name, "plugin names are unique", data);
  bool adapters = false;
  for (const auto& e : entries) {
    const bool adapter = e.origin == "ABX_AGENTS_ADAPTER_MODULES";
    check(adapter || !adapters, "adapter modules come after the manifest's entries", data);
    check(!adapter || e.required, "an adapter module is required", data);
    adapters = adapters || adapter;
  }
  auto second = kernel::loadManifest(manifestPath(), modules);
  check(second && sameEntries(*first, *second), "loading again gives the same manifest", data);
}

}  // namespace abx::fuzz
