// The WHATWG URL parser the browser policy judges with (whatwg_url.h): every
// expectation below is the URL Chromium itself makes of the input (checked
// against Chromium 156's request URLs), so the policy judges the host and
// path Chromium connects to and sends.
#include <gtest/gtest.h>

#include "whatwg_url.h"

namespace abx::plugins::browser {
namespace {

std::string href(const std::string& input) {
  auto url = parseUrl(input);
  EXPECT_TRUE(url) << input << ": " << url.status().message();
  return url ? url->href() : "<invalid>";
}

std::string hostOf(const std::string& input) {
  auto url = parseUrl(input);
  EXPECT_TRUE(url) << input << ": " << url.status().message();
  return url ? url->host.text : "<invalid>";
}

TEST(WhatwgUrl, BackslashEndsTheAuthorityOfSpecialSchemes) {
  EXPECT_EQ(href("http://127.0.0.1:9000\\@allowed.example/"),
            "http://127.0.0.1:9000/@allowed.example/");
  EXPECT_EQ(href("http:\\\\a.test\\b\\c"), "http://a.test/b/c");
  EXPECT_EQ(href("http://a.test/x\\..\\secret"), "http://a.test/secret");
}

TEST(WhatwgUrl, TabsAndNewlinesVanishAndC0AndSpacesAroundAreTrimmed) {
  EXPECT_EQ(href("ht\ttp://127.0.\t0.1/a\rb\n"), "http://127.0.0.1/ab");
  EXPECT_EQ(href("http://local\nhost/"), "http://localhost/");
  EXPECT_EQ(href(" \x01http://a.test/ \x1f"), "http://a.test/");
}

TEST(WhatwgUrl, TheLastAtEndsTheUserinfo) {
  EXPECT_EQ(hostOf("http://allowed.example@127.0.0.1/"), "127.0.0.1");
  EXPECT_EQ(href("http://u@s:p:w@127.0.0.1:38621/"), "http://u%40s:p%3Aw@127.0.0.1:38621/");
  EXPECT_EQ(href("http://\xc3\xbc:\xc3\x9f@127.0.0.1/x"), "http://%C3%BC:%C3%9F@127.0.0.1/x");
  EXPECT_EQ(hostOf("http://a.test/@evil.test"), "a.test");
  EXPECT_EQ(hostOf("http://a.test#@evil.test"), "a.test");
  EXPECT_EQ(hostOf("http://a.test?@evil.test"), "a.test");
}

TEST(WhatwgUrl, Ipv4InEveryNumberForm) {
  for (const char* spelling :
       {"http://2130706433/", "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://0x7F000001/",
        "http://127.1/", "http://0x7f.1/", "http://127.0.1/", "http://0177.0.0.0x1/",
        "http://127.0.0.1./", "http://000000177.0.0.1/", "http://%31%32%37.0.0.1/"})
    EXPECT_EQ(hostOf(spelling), "127.0.0.1") << spelling;
  EXPECT_EQ(hostOf("http://0/"), "0.0.0.0");
  EXPECT_EQ(hostOf("http://0x/"), "0.0.0.0");
  EXPECT_EQ(hostOf("http://1.2.3/"), "1.2.0.3");
  EXPECT_EQ(hostOf("http://1.65536/"), "1.1.0.0");
  EXPECT_EQ(hostOf("http://4294967295/"), "255.255.255.255");
  EXPECT_EQ(parseUrl("http://0x7f.1/")->host.kind, HostKind::ipv4);
}

TEST(WhatwgUrl, Ipv6IsParsedAndCompressed) {
  EXPECT_EQ(hostOf("http://[::ffff:127.0.0.1]/"), "[::ffff:7f00:1]");
  EXPECT_EQ(hostOf("http://[0:0:0:0:0:ffff:127.0.0.1]/"), "[::ffff:7f00:1]");
  EXPECT_EQ(hostOf("http://[::1.2.3.4]/"), "[::102:304]");
  EXPECT_EQ(hostOf("http://[2001:DB8:0:0:1:0:0:1]/"), "[2001:db8::1:0:0:1]");
  EXPECT_EQ(hostOf("http://[1:0:0:2:0:0:0:3]/"), "[1:0:0:2::3]");
  EXPECT_EQ(hostOf("http://[0:0:1:0:0:0:0:0]/"), "[0:0:1::]");
  EXPECT_EQ(hostOf("http://[::]/"), "[::]");
  EXPECT_EQ(hostOf("http://[1::]:8080/"), "[1::]");
  auto v6 = parseUrl("http://[::1]/");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host.kind, HostKind::ipv6);
  EXPECT_EQ(v6->host.address[15], 1);
}

TEST(WhatwgUrl, DomainsAreLowerCaseAndKeepATrailingDot) {
  EXPECT_EQ(href("HTTP://LOCALHOST:80/"), "http://localhost/");
  EXPECT_EQ(hostOf("http://localhost./"), "localhost.");
  EXPECT_EQ(hostOf("http://LocalHost./"), "localhost.");
  EXPECT_EQ(hostOf("http://%6c%6f%63%61%6c%68%6f%73%74/"), "localhost");
  EXPECT_EQ(hostOf("http://a..b/"), "a..b");
  EXPECT_EQ(hostOf("http://xn--zz.example/"),
            "xn--zz.example");  // ASCII: no punycode check
}

TEST(WhatwgUrl, IdnHostsBecomePunycodeAsInChromium) {
  EXPECT_EQ(hostOf("http://"
                   "\xef\xbc\xa5\xef\xbc\xb8\xef\xbc\xa1\xef\xbc\xad\xef\xbc\xb0\xef\xbc"
                   "\xac\xef\xbc\xa5.com/"),
            "example.com");  // fullwidth letters
  EXPECT_EQ(hostOf("http://fa\xc3\x9f.de/"),
            "xn--fa-hia.de");  // non-transitional
  EXPECT_EQ(hostOf("http://b\xc3\xbc"
                   "cher.example/"),
            "xn--bcher-kva.example");
  EXPECT_EQ(hostOf("http://ex%C3%A4mple.com/"),
            "xn--exmple-cua.com");  // decoded, then IDN
  // Fullwidth digits and the ideographic full stop make an IPv4 address.
  EXPECT_EQ(hostOf("http://"
                   "\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97\xe3\x80\x82\xef\xbc\x90\xe3\x80"
                   "\x82\xef\xbc\x90\xe3\x80\x82\xef\xbc\x91/"),
            "127.0.0.1");
  EXPECT_EQ(hostOf("http://"
                   "\xef\xbd\x8c\xef\xbd\x8f\xef\xbd\x83\xef\xbd\x81\xef\xbd\x8c\xef\xbd"
                   "\x88\xef\xbd\x8f\xef\xbd\x93\xef\xbd\x94/"),
            "localhost");
}

TEST(WhatwgUrl, SpecialSchemesNeedNoSlashes) {
  EXPECT_EQ(href("http:127.0.0.1/x"), "http://127.0.0.1/x");
  EXPECT_EQ(href("http:////a.test/"), "http://a.test/");
  EXPECT_EQ(href("http:/\\a.test/"), "http://a.test/");
}

TEST(WhatwgUrl, PathsQueriesAndFragmentsAreEncodedAsChromiumSendsThem) {
  EXPECT_EQ(href("http://a.test/a/%2e%2E/secret/.%2e/x"), "http://a.test/x");
  EXPECT_EQ(href("http://a.test/a/./b/."), "http://a.test/a/b/");
  EXPECT_EQ(href("http://a.test/sp ace/\"q\"/<>/`{}|^/\xc3\xbc"),
            "http://a.test/sp%20ace/%22q%22/%3C%3E/%60%7B%7D%7C%5E/%C3%BC");
  EXPECT_EQ(href("http://a.test/x?q= \"'<>`{}\xc3\xbc#f \"<>`{}\xc3\xbc"),
            "http://a.test/x?q=%20%22%27%3C%3E`{}%C3%BC#f%20%22%3C%3E%60{}%C3%BC");
  EXPECT_EQ(href("http://a.test/%73ecret/%zz/%2f"), "http://a.test/%73ecret/%zz/%2f");
  EXPECT_EQ(href("http://a.test?q"), "http://a.test/?q");
  EXPECT_EQ(href("http://a.test/x?a\\b"), "http://a.test/x?a\\b");
}

TEST(WhatwgUrl, DefaultPortsDisappear) {
  EXPECT_EQ(href("http://a.test:0080/"), "http://a.test/");
  EXPECT_EQ(href("https://a.test:443/"), "https://a.test/");
  EXPECT_EQ(href("http://a.test:8080/"), "http://a.test:8080/");
  EXPECT_EQ(href("http://a.test:/"), "http://a.test/");
  EXPECT_EQ(parseUrl("https://a.test/")->effectivePort(), 443);
  EXPECT_EQ(parseUrl("http://a.test:81/")->effectivePort(), 81);
}

TEST(WhatwgUrl, WhatChromiumRefusesIsAFailure) {
  for (const char* bad : {"http://[::1/",         "http://1.2.3.4.5/",
                          "http://0x100000000/",  "http://256.0.0.1/",
                          "http://1.2.3.256/",    "http://09.1/",
                          "http://a b/",          "http://a%20b/",
                          "http://%zz/",          "http://exa%00mple/",
                          "http://[1::2::3]/",    "http://[::1]x/",
                          "http://:80/",          "http:///",
                          "http://user@/",        "http://a.test:99999/",
                          "http://a.test:8x/",    "http://a<b/",
                          "http://a^b/",          "http://a|b/",
                          "http://ex*ample/",     "not a url",
                          "1http://x/",           "://x",
                          "http://\xef\xbf\xbd/", "http://[::ffff:1.2.3]/",
                          "http://[::1.2.3.04]/"})
    EXPECT_FALSE(parseUrl(bad)) << bad;
}

TEST(WhatwgUrl, OtherSchemesKeepTheirText) {
  auto blank = parseUrl("ABOUT:blank");
  ASSERT_TRUE(blank);
  EXPECT_EQ(blank->scheme, "about");
  EXPECT_EQ(blank->path, "blank");
  EXPECT_EQ(parseUrl("javascript:alert(1)")->scheme, "javascript");
  EXPECT_EQ(parseUrl("file:///etc/passwd")->scheme, "file");
  EXPECT_EQ(parseUrl("data:text/html,hi")->href(), "data:text/html,hi");
  EXPECT_EQ(parseUrl("view-source:http://a.test/")->scheme, "view-source");
  EXPECT_EQ(parseUrl("chrome://version")->host.kind, HostKind::none);
}

TEST(WhatwgIpv4, NumberFormsAndLimits) {
  EXPECT_EQ(parseIpv4("127.0.0.1"), 0x7F000001u);
  EXPECT_EQ(parseIpv4("0x7f.0.0.1"), 0x7F000001u);
  EXPECT_EQ(parseIpv4("017700000001"), 0x7F000001u);
  EXPECT_EQ(parseIpv4("1.2.3.4."), 0x01020304u);
  EXPECT_FALSE(parseIpv4("1.2.3.4.."));
  EXPECT_FALSE(parseIpv4("08"));
  EXPECT_FALSE(parseIpv4("0xg"));
  EXPECT_FALSE(parseIpv4("1.2.65536"));
  EXPECT_FALSE(parseIpv4(""));
}

TEST(WhatwgIpv6, SerialisationPicksTheFirstLongestZeroRun) {
  EXPECT_EQ(serializeIpv6(*parseIpv6("1:0:0:2:0:0:3:4")), "1::2:0:0:3:4");
  EXPECT_EQ(serializeIpv6(*parseIpv6("1:0:2:3:4:5:6:7")), "1:0:2:3:4:5:6:7");
  EXPECT_EQ(serializeIpv6(*parseIpv6("::")), "::");
  EXPECT_FALSE(parseIpv6("1:2:3:4:5:6:7:8:9"));
  EXPECT_FALSE(parseIpv6(":1"));
  EXPECT_FALSE(parseIpv6("1:"));
  EXPECT_FALSE(parseIpv6("12345::"));
}

}  // namespace
}  // namespace abx::plugins::browser
