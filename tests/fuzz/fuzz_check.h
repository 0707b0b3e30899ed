// The fuzz targets' one way to report a broken invariant (abort with what
// broke, so libFuzzer keeps the input), and the sub-target entry points of
// the grouped binaries (kernel_fuzz, plugins_fuzz): one binary per group
// keeps the clang compile of shared sources to once per run.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace abx::fuzz {

[[noreturn]] inline void violated(const char* what, std::string_view input = {}) {
  std::fprintf(stderr, "invariant violated: %s\n", what);
  if (!input.empty())
    std::fprintf(stderr, "input: %.*s\n",
                 static_cast<int>(std::min<std::size_t>(input.size(), 400)), input.data());
  std::abort();
}

inline void check(bool ok, const char* what, std::string_view input = {}) {
  if (!ok) violated(what, input);
}

// kernel_fuzz sub-targets.
void fuzzRouting(std::string_view data);
void fuzzPipeline(std::string_view data);
void fuzzManifest(std::string_view data);

// plugins_fuzz sub-targets.
void fuzzUploadBody(std::string_view data);
void fuzzWsFrames(std::string_view data);
void fuzzCommandsFile(std::string_view data);
void fuzzUrlPolicy(std::string_view data);
void fuzzResumePosition(std::string_view data);
void fuzzAgentDefinitions(std::string_view data);

}  // namespace abx::fuzz
