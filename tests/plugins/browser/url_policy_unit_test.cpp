// The navigate URL policy (docs/browser.md, "Policy"): URL parsing, the
// url_allow / url_deny globs (a glob holding '/' is matched against the
// whole URL, any other against the host), the private-address test and
// checkUrl's verdicts including block_private_networks.
#include <gtest/gtest.h>

#include "url_policy.h"

namespace abx::plugins::browser {
namespace {

using Globs = std::vector<std::string>;

bool matches(const Globs& globs, const std::string& url) {
  auto parts = parseUrl(url);
  EXPECT_TRUE(parts.has_value()) << url;
  return parts && urlMatches(globs, url, *parts);
}

TEST(ParseUrl, LowerCasesSchemeAndHostAndDropsUserinfoAndPort) {
  auto p = parseUrl("HTTPS://user:pw@API.Example.COM:8443/Path?q=1#frag");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->scheme, "https");
  EXPECT_EQ(p->host, "api.example.com");
}

TEST(ParseUrl, StripsIpv6Brackets) {
  auto p = parseUrl("http://[::1]:8080/");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->host, "::1");
  EXPECT_FALSE(parseUrl("http://[::1/"));  // unclosed bracket
}

TEST(ParseUrl, HostEndsAtPathQueryOrFragment) {
  EXPECT_EQ(parseUrl("http://a.test/x")->host, "a.test");
  EXPECT_EQ(parseUrl("http://a.test?x")->host, "a.test");
  EXPECT_EQ(parseUrl("http://a.test#x")->host, "a.test");
  // The last '@' of the authority ends the userinfo; one in the path does not.
  EXPECT_EQ(parseUrl("http://evil.test@good.test/")->host, "good.test");
  EXPECT_EQ(parseUrl("http://good.test/@evil.test")->host, "good.test");
}

TEST(ParseUrl, OpaqueUrlsHaveNoHostAndJunkIsRejected) {
  auto blank = parseUrl("about:blank");
  ASSERT_TRUE(blank);
  EXPECT_EQ(blank->scheme, "about");
  EXPECT_EQ(blank->host, "");
  EXPECT_FALSE(parseUrl("example.com"));      // no scheme
  EXPECT_FALSE(parseUrl(":foo"));             // empty scheme
  EXPECT_FALSE(parseUrl("ht tp://x.test/"));  // a space in the scheme
}

TEST(UrlMatches, GlobWithoutSlashMatchesTheHostOnly) {
  EXPECT_TRUE(matches({"*.internal"}, "http://api.internal/x"));
  EXPECT_FALSE(matches({"*.internal"}, "http://internal.example.com/"));
  // The host glob never sees the path, the port or the scheme.
  EXPECT_FALSE(matches({"*admin*"}, "http://example.com/admin/"));
  EXPECT_TRUE(matches({"127.0.0.1"}, "http://127.0.0.1:8080/page"));
  EXPECT_FALSE(matches({"http*"}, "http://example.com/"));
}

TEST(UrlMatches, HostGlobIgnoresCase) {
  EXPECT_TRUE(matches({"*.EXAMPLE.com"}, "https://WWW.example.COM/"));
}

TEST(UrlMatches, GlobWithSlashMatchesTheWholeUrl) {
  EXPECT_TRUE(matches({"*/admin/*"}, "http://example.com/admin/users"));
  EXPECT_FALSE(matches({"*/admin/*"}, "http://example.com/public/admin"));
  EXPECT_TRUE(matches({"https://docs.example.com/*"}, "https://docs.example.com/a/b"));
  EXPECT_FALSE(matches({"https://docs.example.com/*"}, "http://docs.example.com/a/b"));
  // Without FNM_PATHNAME, '*' spans several path segments.
  EXPECT_TRUE(matches({"http://*.test/*.pdf"}, "http://files.test/a/b/c.pdf"));
}

TEST(UrlMatches, AnyOfSeveralGlobsAndNoneOfAnEmptyList) {
  EXPECT_TRUE(matches({"a.test", "b.test"}, "http://b.test/"));
  EXPECT_FALSE(matches({"a.test", "b.test"}, "http://c.test/"));
  EXPECT_FALSE(matches({}, "http://a.test/"));
}

TEST(IsPrivateAddress, Ipv4Ranges) {
  for (const char* a : {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255",
                        "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.0.1", "0.0.0.0",
                        "224.0.0.1", "255.255.255.255", "192.0.0.8", "198.18.0.1"})
    EXPECT_TRUE(isPrivateAddress(a)) << a;
  for (const char* a : {"8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255",
                        "100.128.0.1", "192.169.0.1", "169.253.0.1", "93.184.216.34"})
    EXPECT_FALSE(isPrivateAddress(a)) << a;
}

TEST(IsPrivateAddress, Ipv6Ranges) {
  for (const char* a : {"::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "ff02::1",
                        "2001:db8::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1"})
    EXPECT_TRUE(isPrivateAddress(a)) << a;
  for (const char* a : {"2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8"})
    EXPECT_FALSE(isPrivateAddress(a)) << a;
}

TEST(IsPrivateAddress, SomethingThatIsNoAddressCountsAsPrivate) {
  EXPECT_TRUE(isPrivateAddress("example.com"));
  EXPECT_TRUE(isPrivateAddress(""));
  EXPECT_TRUE(isPrivateAddress("300.1.1.1"));
}

TEST(CheckUrl, BadUrlsAre400WithoutCode) {
  const sdk::Params none;
  for (const char* url : {"not a url", "ftp://example.com/", "file:///etc/passwd",
                          "javascript:alert(1)", "data:text/html,hi", "http:///path"}) {
    auto v = checkUrl(url, none);
    ASSERT_TRUE(v) << url;
    EXPECT_EQ(v->status, 400) << url;
    EXPECT_EQ(v->code, "") << url;
  }
}

TEST(CheckUrl, HttpHttpsAndAboutBlankPassWithoutPolicy) {
  const sdk::Params none;
  EXPECT_FALSE(checkUrl("http://127.0.0.1:1234/", none));
  EXPECT_FALSE(checkUrl("https://example.com/a", none));
  EXPECT_FALSE(checkUrl("about:blank", none));
  EXPECT_FALSE(checkUrl("ABOUT:BLANK", none));
}

TEST(CheckUrl, DenyGlobRefusesWith403UrlNotAllowed) {
  sdk::Params p;
  p.url_deny = Globs{"*.internal", "*/admin/*"};
  auto host = checkUrl("http://db.internal/", p);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->status, 403);
  EXPECT_EQ(host->code, "url_not_allowed");
  EXPECT_NE(host->message.find("denied"), std::string::npos) << host->message;
  auto path = checkUrl("https://example.com/admin/x", p);
  ASSERT_TRUE(path);
  EXPECT_EQ(path->status, 403);
  EXPECT_FALSE(checkUrl("https://example.com/public", p));
}

TEST(CheckUrl, AllowListAdmitsOnlyMatchingUrls) {
  sdk::Params p;
  p.url_allow = Globs{"127.0.0.1", "https://docs.example.com/*"};
  EXPECT_FALSE(checkUrl("http://127.0.0.1:8080/x", p));
  EXPECT_FALSE(checkUrl("https://docs.example.com/guide", p));
  auto other = checkUrl("https://example.com/", p);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 403);
  EXPECT_EQ(other->code, "url_not_allowed");
  EXPECT_NE(other->message.find("not allowed"), std::string::npos) << other->message;
  // The allow list does not widen the schemes.
  auto ftp = checkUrl("ftp://127.0.0.1/", p);
  ASSERT_TRUE(ftp);
  EXPECT_EQ(ftp->status, 400);
}

TEST(CheckUrl, DenyIsCheckedBeforeAllow) {
  sdk::Params p;
  p.url_allow = Globs{"*.example.com"};
  p.url_deny = Globs{"secret.example.com"};
  EXPECT_FALSE(checkUrl("https://www.example.com/", p));
  auto v = checkUrl("https://secret.example.com/", p);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, 403);
  EXPECT_NE(v->message.find("denied"), std::string::npos) << v->message;
}

TEST(CheckUrl, PrivateNetworksPassUnlessBlocked) {
  sdk::Params p;
  EXPECT_FALSE(checkUrl("http://127.0.0.1:8080/", p));  // default: off
  p.block_private_networks = false;
  EXPECT_FALSE(checkUrl("http://10.0.0.1/", p));
  p.block_private_networks = true;
  for (const char* url : {"http://127.0.0.1:8080/", "http://10.0.0.1/", "http://[::1]:80/",
                          "http://169.254.169.254/latest/meta-data", "http://localhost/",
                          "http://[::ffff:192.168.0.1]/"}) {
    auto v = checkUrl(url, p);
    ASSERT_TRUE(v) << url;
    EXPECT_EQ(v->status, 403) << url;
    EXPECT_EQ(v->code, "url_not_allowed") << url;
  }
}

TEST(CheckUrl, BlockPrivateNetworksAdmitsPublicLiteralsAndAboutBlank) {
  sdk::Params p;
  p.block_private_networks = true;
  // Numeric hosts resolve without DNS.
  EXPECT_FALSE(checkUrl("http://8.8.8.8/", p));
  EXPECT_FALSE(checkUrl("https://[2606:4700:4700::1111]/", p));
  EXPECT_FALSE(checkUrl("about:blank", p));
}

TEST(CheckUrl, BlockPrivateNetworksRefusesAHostThatDoesNotResolve) {
  sdk::Params p;
  p.block_private_networks = true;
  // .invalid never resolves (RFC 6761): fail closed.
  auto v = checkUrl("http://no-such-host.invalid/", p);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->status, 403);
  EXPECT_NE(v->message.find("Cannot resolve"), std::string::npos) << v->message;
}

}  // namespace
}  // namespace abx::plugins::browser
