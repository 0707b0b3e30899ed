// dlopen of the ICU the plugin was compiled against (ABX_ICU_UC_SONAME,
// libicuuc.so.<major>, from the ICU CMake found); ICU's symbols carry the
// major version (uidna_openUTS46_72), which the renaming macros of its own
// headers give.
#include "icu_idna.h"

#include <unicode/uvernum.h>

#include <string_view>

#include "abx/sdk/lazy_library.h"

#define ABX_ICU_TEXT2(x) #x
#define ABX_ICU_TEXT(x) ABX_ICU_TEXT2(x)

namespace abx::plugins::browser {
namespace {

constexpr const char* kLibrary = ABX_ICU_UC_SONAME;
static_assert(std::string_view(ABX_ICU_UC_SONAME) ==
                  "libicuuc.so." ABX_ICU_TEXT(U_ICU_VERSION_MAJOR_NUM),
              "CMake found another ICU than the headers compiled here");

struct Loaded {
  IcuIdna api{};
  std::string error;
};

Loaded load() {
  sdk::LazyLibrary lib(kLibrary);
  Loaded l;
  decltype(&::uidna_openUTS46) open = nullptr;
  lib.bind(ABX_ICU_TEXT(uidna_openUTS46), open);
  lib.bind(ABX_ICU_TEXT(uidna_nameToASCII_UTF8), l.api.nameToAscii);
  if (!open || !l.api.nameToAscii) {
    l.error = lib.error();
    return l;
  }
  UErrorCode error = U_ZERO_ERROR;
  l.api.idna = open(UIDNA_CHECK_BIDI | UIDNA_NONTRANSITIONAL_TO_ASCII, &error);
  if (!l.api.idna || U_FAILURE(error)) l.error = "ICU refused the UTS #46 options";
  return l;
}

}  // namespace

const IcuIdna* icuIdna(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    if (why) *why = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace abx::plugins::browser
