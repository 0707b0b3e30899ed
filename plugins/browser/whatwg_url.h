// The WHATWG URL Standard's parser (what Chromium runs), for absolute URLs:
// the host the policy judges must be the host Chromium connects to. Leading
// and trailing C0/space are stripped, tabs and newlines removed anywhere,
// `\` is a `/` in special schemes, the last `@` ends the userinfo, the host is
// percent-decoded, IDN hosts go through UTS #46 ToASCII with Chromium's
// options (ICU), a host ending in a number is an IPv4 address in any of its
// forms (decimal, octal, hex, one to four parts), IPv6 is parsed and
// compressed. No base URL: relative references are failures.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "abx/sdk/status.h"

namespace abx::plugins::browser {

enum class HostKind { none, domain, ipv4, ipv6, opaque };

struct ParsedHost {
  HostKind kind = HostKind::none;
  /** The serialised host: lower-case ASCII (punycode), dotted IPv4, "[v6]". */
  std::string text;
  std::array<std::uint8_t, 16> address{}; /**< ipv4: first 4 bytes; ipv6: all 16 */
};

struct ParsedUrl {
  std::string scheme; /**< lower case, without ':' */
  bool special = false;
  std::string username, password;
  ParsedHost host;
  std::optional<int> port; /**< absent: none given or the scheme's default */
  std::string path;        /**< serialised ("/a/b" for special schemes; opaque text otherwise) */
  std::optional<std::string> query, fragment;

  /** The serialisation (what Chromium shows as the URL). */
  std::string href() const;
  /** The port a connection uses: the explicit one or the scheme's default (-1: none). */
  int effectivePort() const;
};

/** True for http, https, ws, wss, ftp and file. */
bool isSpecialScheme(std::string_view scheme);

/** Parses an absolute URL; failures (type ValueError) say what is wrong. */
sdk::Result<ParsedUrl> parseUrl(std::string_view input);

/**
 * The WHATWG host parser. @p special: a special scheme's host (domain/IP),
 * else an opaque host. Input is still percent-encoded.
 */
sdk::Result<ParsedHost> parseHost(std::string_view input, bool special);

/** The IPv4 parser: nullopt when @p input is no IPv4 address in any accepted form. */
std::optional<std::uint32_t> parseIpv4(std::string_view input);

/** The IPv6 parser (no brackets). */
std::optional<std::array<std::uint16_t, 8>> parseIpv6(std::string_view input);

/** Compressed lower-case text of an IPv6 address, without brackets. */
std::string serializeIpv6(const std::array<std::uint16_t, 8>& pieces);

}  // namespace abx::plugins::browser
