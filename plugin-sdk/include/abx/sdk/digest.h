// Since 2.5. SHA-1 and SHA-256 (FIPS 180-4) of a byte string, for the few
// places the server needs a digest: the WebSocket handshake's accept key
// (RFC 6455 names SHA-1) and token comparison by digest. Not for bulk data
// and not a MAC.
#pragma once

#include <array>
#include <string_view>

#include "abx/sdk/version.h"

namespace abx::sdk {

ABX_SDK_API std::array<unsigned char, 20> sha1(std::string_view bytes);
ABX_SDK_API std::array<unsigned char, 32> sha256(std::string_view bytes);

}  // namespace abx::sdk
