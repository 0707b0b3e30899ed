// sdk::LazyLibrary: a library opened by soname on first use, its functions
// bound by name, and the first thing missing kept as the error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "abx/sdk/lazy_library.h"

namespace {

using ::testing::HasSubstr;

TEST(SdkLazyLibrary, BindsTheFunctionsOfARealLibrary) {
  abx::sdk::LazyLibrary lib("libm.so.6");
  double (*cosine)(double) = nullptr;
  lib.bind("cos", cosine);
  ASSERT_NE(cosine, nullptr);
  EXPECT_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(lib.error(), "");
}

TEST(SdkLazyLibrary, AMissingSymbolIsNamedAndTheFirstOneKept) {
  abx::sdk::LazyLibrary lib("libm.so.6");
  void (*missing)() = nullptr;
  lib.bind("abx_no_such_function", missing);
  lib.bind("abx_nor_this_one", missing);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(lib.error(), "libm.so.6 has no abx_no_such_function");
}

TEST(SdkLazyLibrary, AMissingLibraryIsAnErrorAndBindsNothing) {
  abx::sdk::LazyLibrary lib("libabx-no-such-library.so.9");
  void* any = lib.symbol("cos");
  EXPECT_EQ(any, nullptr);
  EXPECT_THAT(lib.error(), HasSubstr("cannot load libabx-no-such-library.so.9: "));
}

}  // namespace
