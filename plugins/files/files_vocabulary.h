// The file_ops group's policy parameters and the files plugin's settings:
// the vocabulary the kernel checks policy documents and the manifest against
// (it knows no key of its own).
#pragma once

#include <vector>

#include "abx/sdk/policy.h"

namespace abx::plugins::files {

inline constexpr char kOverwrite[] = "overwrite";
inline constexpr char kAllowExtensions[] = "allow_extensions";
inline constexpr char kDenyExtensions[] = "deny_extensions";

inline std::vector<sdk::ParamSpec> fileParams() {
  return {
      {kOverwrite, sdk::ParamType::boolean, "false refuses writes over an existing file (409)"},
      {kAllowExtensions, sdk::ParamType::string_list,
       "file name suffixes writes and reads are limited to (\".md\" and \"md\" alike)"},
      {kDenyExtensions, sdk::ParamType::string_list,
       "file name suffixes refused (403 extension_not_allowed)"},
  };
}

/** JSON Schema of the settings: the loader reads it before the plugin exists.
 *  max_upload_size: ABX_FILES_MAX_UPLOAD_SIZE, or ABX_MAX_UPLOAD_SIZE. */
inline constexpr char kFilesSettingsSchema[] =
    R"json({"type":"object","additionalProperties":false,"properties":{)json"
    R"json("max_upload_size":{"type":"integer","default":104857600,"x-env":"ABX_MAX_UPLOAD_SIZE",)json"
    R"json("description":"largest file POST /upload takes, in bytes; 0 means the default"}}})json";

}  // namespace abx::plugins::files
