// The abx.files plugin: owns the `file_ops` group and its eleven routes
// (spec §4.3): legacy /upload and /download plus the /files/* operations.
#pragma once

#include <memory>

#include "abx/sdk/host_context.h"
#include "abx/sdk/plugin.h"
#include "file_access.h"

namespace abx::plugins::files {

class FilesPlugin final : public sdk::Plugin {
 public:
  /** Declares the group, reads ABX_MAX_UPLOAD_SIZE, adds the routes. */
  sdk::Status start(sdk::HostContext& host) override;

 private:
  FilesContext ctx_;
};

/** The factory ABX_DECLARE_PLUGIN calls. */
std::unique_ptr<sdk::Plugin> makeFilesPlugin(sdk::HostContext& host);

}  // namespace abx::plugins::files
