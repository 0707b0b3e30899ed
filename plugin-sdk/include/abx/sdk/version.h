// SDK and ABI version numbers: the one place they are defined.
// SDK MAJOR.MINOR equals ABI MAJOR.MINOR; a minor bump is append-only.
#pragma once

#define ABX_SDK_ABI_MAJOR 2
#define ABX_SDK_ABI_MINOR 5
#define ABX_SDK_VERSION_STRING "2.5.0"

#if defined(__GNUC__)
#define ABX_SDK_API __attribute__((visibility("default")))
#else
#define ABX_SDK_API
#endif
