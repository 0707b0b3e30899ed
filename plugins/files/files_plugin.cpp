// The route table of the group: endpoint ids and default scopes follow
// DESIGN.md's table, so policy files written for the spec's server apply.
#include "files_plugin.h"

#include <vector>

#include "abx/sdk/route_table.h"
#include "archive_routes.h"
#include "download_routes.h"
#include "file_rules.h"
#include "files_vocabulary.h"
#include "listing_routes.h"
#include "manage_routes.h"
#include "upload_routes.h"

namespace abx::plugins::files {

sdk::Status FilesPlugin::start(sdk::HostContext& host) {
  if (auto s = host.routes().declareGroup(
          {"file_ops", false, "Files: upload, download, list, stat, search, move, archive",
           fileParams()});
      !s)
    return s;
  ctx_.guard = &host.paths();
  ctx_.upload_limit = uploadLimit(host.settings());
  if (!host.info().state_dir.empty()) ctx_.staging_dir = host.info().state_dir + "/files-staging";

  const std::vector<std::string> read{"files:read"}, write{"files:write"}, remove{"files:delete"},
      move{"files:write", "files:delete"};
  // Uploads read their body themselves, up to the decoded size cap's base64.
  const std::size_t upload_cap = uploadRequestCap(ctx_.upload_limit);
  const FilesContext* ctx = &ctx_;
  return sdk::addRoutes(
      host.routes(), "file_ops", ctx,
      {
          {"POST", "/upload", "upload", "Write a file from base64 content", write, &upload, nullptr,
           true, upload_cap},
          {"GET", "/download", "download", "Read a file as base64", read, &download},
          {"GET", "/files/list", "files_list", "List a directory", read, &listFiles},
          {"GET", "/files/stat", "files_stat", "Metadata of a file or directory", read, &statFile},
          {"POST", "/files/mkdir", "files_mkdir", "Create a directory and its parents", write,
           &makeDirectory},
          {"DELETE", "/files", "files_delete", "Delete a file or a directory tree", remove,
           &deletePath},
          {"POST", "/files/move", "files_move", "Move or rename a file or directory", move,
           &movePath},
          {"POST", "/files/search", "files_search", "Find files by glob pattern", read,
           &searchFiles},
          {"POST", "/files/upload-stream", "files_upload_stream",
           "Write a file from base64 content, decoded in 64 KiB chunks", write, &upload, nullptr,
           true, upload_cap},
          {"GET", "/files/download-stream", "files_download_stream",
           "Read a file as base64, encoded in chunks", read, &downloadStream},
          {"POST", "/files/archive", "files_archive", "Pack files into tar.gz or zip", read,
           &archivePaths},
      });
}

std::unique_ptr<sdk::Plugin> makeFilesPlugin(sdk::HostContext&) {
  return std::make_unique<FilesPlugin>();
}

}  // namespace abx::plugins::files
