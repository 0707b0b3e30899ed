// libFuzzer target for the kernel's parsers of outside input, grouped in one
// binary so run.sh compiles their sources once. Built and run by
// tests/fuzz/run.sh kernel with -fsanitize=fuzzer,address,undefined.
//
// The first input byte picks the sub-target (its value mod 3), the rest is
// its input:
//   0  kernel_routing_fuzz.cpp   target normalisation, route match, percent
//                                decoding, query strings
//   1  kernel_pipeline_fuzz.cpp  request head parser, then the Pipeline over
//                                an in-memory exchange
//   2  kernel_manifest_fuzz.cpp  the plugin manifest
// Each file says what it checks; a broken invariant aborts with a message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      abx::fuzz::fuzzRouting(rest);
      break;
    case 1:
      abx::fuzz::fuzzPipeline(rest);
      break;
    default:
      abx::fuzz::fuzzManifest(rest);
      break;
  }
  return 0;
}
