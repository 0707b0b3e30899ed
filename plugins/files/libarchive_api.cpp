// Opened by soname (ABX_LIBARCHIVE_SONAME, from the library CMake found).
#include "libarchive_api.h"

#include "abx/sdk/lazy_library.h"

namespace abx::plugins::files {
namespace {

struct Loaded {
  LibArchiveApi api{};
  std::string error;
};

Loaded load() {
  sdk::LazyLibrary lib(ABX_LIBARCHIVE_SONAME);
  Loaded l;
  auto& a = l.api;
  lib.bind("archive_write_new", a.write_new);
  lib.bind("archive_write_set_format_zip", a.write_set_format_zip);
  lib.bind("archive_write_add_filter_gzip", a.write_add_filter_gzip);
  lib.bind("archive_write_set_format_pax_restricted", a.write_set_format_pax_restricted);
  lib.bind("archive_write_set_bytes_in_last_block", a.write_set_bytes_in_last_block);
  lib.bind("archive_write_open", a.write_open);
  lib.bind("archive_write_header", a.write_header);
  lib.bind("archive_write_data", a.write_data);
  lib.bind("archive_write_finish_entry", a.write_finish_entry);
  lib.bind("archive_write_close", a.write_close);
  lib.bind("archive_write_free", a.write_free);
  lib.bind("archive_set_error", a.set_error);
  lib.bind("archive_error_string", a.error_string);
  lib.bind("archive_entry_new", a.entry_new);
  lib.bind("archive_entry_free", a.entry_free);
  lib.bind("archive_entry_copy_pathname", a.entry_copy_pathname);
  lib.bind("archive_entry_copy_symlink", a.entry_copy_symlink);
  lib.bind("archive_entry_set_filetype", a.entry_set_filetype);
  lib.bind("archive_entry_set_perm", a.entry_set_perm);
  lib.bind("archive_entry_set_uid", a.entry_set_uid);
  lib.bind("archive_entry_set_gid", a.entry_set_gid);
  lib.bind("archive_entry_set_mtime", a.entry_set_mtime);
  lib.bind("archive_entry_set_size", a.entry_set_size);
  l.error = lib.error();
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
