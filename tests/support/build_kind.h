// What kind of build the tests run against. A sanitized build
// (tests/sanitize/run.sh) gives every allocation redzones and keeps freed
// memory in a 256 MiB quarantine, so a server's RSS there says nothing of
// the product's: memory bounds are printed but asserted only in a normal build.
#pragma once

namespace abx::testing {

#ifdef ABX_SANITIZED
inline constexpr bool kRssIsMeaningful = false;
#else
inline constexpr bool kRssIsMeaningful = true;
#endif

}  // namespace abx::testing
