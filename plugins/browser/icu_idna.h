// ICU's UTS #46 mapper, opened on the first non-ASCII host instead of at
// load: a server that never parses an IDN host does not map ICU (about
// 0.6 MiB of idle RSS, its 30 MiB data file included in the address space).
#pragma once

#include <unicode/uidna.h>

#include <string>

namespace abx::plugins::browser {

struct IcuIdna {
  /** Opened with Chromium's options (UIDNA_CHECK_BIDI | UIDNA_NONTRANSITIONAL_TO_ASCII). */
  const UIDNA* idna;
  decltype(&::uidna_nameToASCII_UTF8) nameToAscii;
};

/**
 * Loaded once (thread-safe) and kept for the life of the process; nullptr
 * when ICU is missing or refuses the options, with the reason in @p why.
 */
const IcuIdna* icuIdna(std::string* why = nullptr);

}  // namespace abx::plugins::browser
