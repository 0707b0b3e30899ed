// The one exported symbol of abx_files.so.
#include "abx/sdk/declare_plugin.h"
#include "files_plugin.h"
#include "files_vocabulary.h"

ABX_DECLARE_PLUGIN(abx::plugins::files::makeFilesPlugin, "abx.files", "1.0.0", ABX_KIND_CAPABILITY,
                   abx::plugins::files::kFilesSettingsSchema)
