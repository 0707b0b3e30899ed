// dlopen by soname (ABX_LIBARCHIVE_SONAME, from the library CMake found),
// so the search is the one the dynamic linker makes for a linked library.
#include "libarchive_api.h"

#include <dlfcn.h>

namespace abx::plugins::files {
namespace {

struct Loaded {
  LibArchiveApi api{};
  std::string error;
};

template <typename F>
bool bind(void* library, const char* name, F& out, std::string& error) {
  out = reinterpret_cast<F>(::dlsym(library, name));
  if (!out && error.empty()) error = std::string("libarchive has no ") + name;
  return out != nullptr;
}

Loaded load() {
  Loaded l;
  // Never closed: writers may be in use on other threads at any time.
  void* lib = ::dlopen(ABX_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    l.error = std::string("cannot load " ABX_LIBARCHIVE_SONAME ": ") + (why ? why : "?");
    return l;
  }
  auto& a = l.api;
  auto& e = l.error;
  bind(lib, "archive_write_new", a.write_new, e);
  bind(lib, "archive_write_set_format_zip", a.write_set_format_zip, e);
  bind(lib, "archive_write_add_filter_gzip", a.write_add_filter_gzip, e);
  bind(lib, "archive_write_set_format_pax_restricted", a.write_set_format_pax_restricted, e);
  bind(lib, "archive_write_set_bytes_in_last_block", a.write_set_bytes_in_last_block, e);
  bind(lib, "archive_write_open", a.write_open, e);
  bind(lib, "archive_write_header", a.write_header, e);
  bind(lib, "archive_write_data", a.write_data, e);
  bind(lib, "archive_write_finish_entry", a.write_finish_entry, e);
  bind(lib, "archive_write_close", a.write_close, e);
  bind(lib, "archive_write_free", a.write_free, e);
  bind(lib, "archive_set_error", a.set_error, e);
  bind(lib, "archive_error_string", a.error_string, e);
  bind(lib, "archive_entry_new", a.entry_new, e);
  bind(lib, "archive_entry_free", a.entry_free, e);
  bind(lib, "archive_entry_copy_pathname", a.entry_copy_pathname, e);
  bind(lib, "archive_entry_copy_symlink", a.entry_copy_symlink, e);
  bind(lib, "archive_entry_set_filetype", a.entry_set_filetype, e);
  bind(lib, "archive_entry_set_perm", a.entry_set_perm, e);
  bind(lib, "archive_entry_set_uid", a.entry_set_uid, e);
  bind(lib, "archive_entry_set_gid", a.entry_set_gid, e);
  bind(lib, "archive_entry_set_mtime", a.entry_set_mtime, e);
  bind(lib, "archive_entry_set_size", a.entry_set_size, e);
  return l;
}

}  // namespace

const LibArchiveApi* libArchive(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    if (why) *why = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace abx::plugins::files
