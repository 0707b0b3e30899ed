// The libarchive functions the archive writer calls, bound on first use
// (dlopen) instead of at load: a server that never writes an archive does
// not map libarchive nor the ten libraries it pulls in (libxml2, ICU,
// nettle, the compressors), about 1.6 MiB of idle RSS.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <string>

namespace abx::plugins::files {

struct LibArchiveApi {
  decltype(&::archive_write_new) write_new;
  decltype(&::archive_write_set_format_zip) write_set_format_zip;
  decltype(&::archive_write_add_filter_gzip) write_add_filter_gzip;
  decltype(&::archive_write_set_format_pax_restricted) write_set_format_pax_restricted;
  decltype(&::archive_write_set_bytes_in_last_block) write_set_bytes_in_last_block;
  decltype(&::archive_write_open) write_open;
  decltype(&::archive_write_header) write_header;
  decltype(&::archive_write_data) write_data;
  decltype(&::archive_write_finish_entry) write_finish_entry;
  decltype(&::archive_write_close) write_close;
  decltype(&::archive_write_free) write_free;
  decltype(&::archive_set_error) set_error;
  decltype(&::archive_error_string) error_string;
  decltype(&::archive_entry_new) entry_new;
  decltype(&::archive_entry_free) entry_free;
  decltype(&::archive_entry_copy_pathname) entry_copy_pathname;
  decltype(&::archive_entry_copy_symlink) entry_copy_symlink;
  decltype(&::archive_entry_set_filetype) entry_set_filetype;
  decltype(&::archive_entry_set_perm) entry_set_perm;
  decltype(&::archive_entry_set_uid) entry_set_uid;
  decltype(&::archive_entry_set_gid) entry_set_gid;
  decltype(&::archive_entry_set_mtime) entry_set_mtime;
  decltype(&::archive_entry_set_size) entry_set_size;
};

/**
 * The bound functions, loaded once (thread-safe) and kept for the life of
 * the process; nullptr when the library or one of its functions is missing,
 * with the loader's message in @p why.
 */
const LibArchiveApi* libArchive(std::string* why = nullptr);

}  // namespace abx::plugins::files
