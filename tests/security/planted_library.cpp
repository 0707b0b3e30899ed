// A library an attacker plants where a dependency the server opens on first
// use (libarchive, ICU) might be looked for: its constructor appends a line
// to $ABX_TEST_PLANTED_MARK, so a test can tell whether the server loaded it.
#include <cstdlib>
#include <fstream>

namespace {

[[gnu::constructor]] void markLoaded() {
  if (const char* mark = std::getenv("ABX_TEST_PLANTED_MARK"))
    std::ofstream(mark, std::ios::app) << "planted library loaded\n";
}

}  // namespace
