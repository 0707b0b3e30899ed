// The browser's URL policy (docs/browser.md, "Policy"): host names a glob
// sees, url_allow / url_deny globs (a glob holding '/' is matched against
// the whole URL, any other against the host), rule names, the private
// address ranges, checkUrl's verdicts for navigate and decideConnection's
// for the proxy (host, port and the address connected to).
#include <gtest/gtest.h>

#include "net_address.h"
#include "url_policy.h"

namespace abx::plugins::browser {
namespace {

using Globs = std::vector<std::string>;

bool matches(const Globs& globs, const std::string& url) {
  auto parsed = parseUrl(url);
  EXPECT_TRUE(parsed) << url;
  return parsed && urlMatches(globs, *parsed);
}

std::vector<std::string> namesOf(const std::string& url) { return hostNames(parseUrl(url)->host); }

TEST(HostNames, CanonicalHostPlusTheSameNameWithoutTrailingDotOrAsIpv4) {
  EXPECT_EQ(namesOf("http://A.Example/"), (Globs{"a.example"}));
  EXPECT_EQ(namesOf("http://localhost./"), (Globs{"localhost.", "localhost"}));
  EXPECT_EQ(namesOf("http://[::1]/"), (Globs{"::1"}));
  EXPECT_EQ(namesOf("http://[::ffff:127.0.0.1]/"), (Globs{"::ffff:7f00:1", "127.0.0.1"}));
  EXPECT_EQ(namesOf("http://2130706433/"), (Globs{"127.0.0.1"}));
}

TEST(UrlMatches, HostGlobsSeeTheHostAsChromiumParsesIt) {
  EXPECT_TRUE(matches({"127.0.0.1"}, "http://127.0.0.1:9000\\@allowed.example/"));
  EXPECT_FALSE(matches({"allowed.example"}, "http://127.0.0.1:9000\\@allowed.example/"));
  EXPECT_TRUE(matches({"127.0.0.1"}, "http://0x7f.1/"));
  EXPECT_TRUE(matches({"127.0.0.1"}, "http://[::ffff:7f00:1]/"));
  EXPECT_TRUE(matches({"localhost"}, "http://LOCALHOST./"));
  EXPECT_TRUE(matches({"*.example.com"}, "https://WWW.example.COM./"));
  EXPECT_TRUE(matches({"xn--bcher-kva.example"},
                      "http://b\xc3\xbc"
                      "cher.example/"));
  EXPECT_TRUE(matches({"*.EXAMPLE.com"}, "https://www.example.com/"));
}

TEST(UrlMatches, GlobWithoutSlashNeverSeesPathPortOrScheme) {
  EXPECT_TRUE(matches({"*.internal"}, "http://api.internal/x"));
  EXPECT_FALSE(matches({"*.internal"}, "http://internal.example.com/"));
  EXPECT_FALSE(matches({"*admin*"}, "http://example.com/admin/"));
  EXPECT_TRUE(matches({"127.0.0.1"}, "http://127.0.0.1:8080/page"));
  EXPECT_FALSE(matches({"http*"}, "http://example.com/"));
}

TEST(UrlMatches, GlobWithSlashMatchesTheCanonicalUrlWithoutFragment) {
  EXPECT_TRUE(matches({"*/admin/*"}, "http://example.com/admin/users"));
  EXPECT_FALSE(matches({"*/admin/*"}, "http://example.com/public/admin"));
  EXPECT_TRUE(matches({"*/admin/*"}, "http://example.com/x/..\\admin\\users"));
  EXPECT_TRUE(matches({"*/admin/*"}, "http://example.com/x/%2e%2e/admin/users"));
  EXPECT_TRUE(matches({"https://docs.example.com/*"}, "HTTPS://DOCS.example.com:443/a/b"));
  EXPECT_FALSE(matches({"https://docs.example.com/*"}, "http://docs.example.com/a/b"));
  EXPECT_TRUE(matches({"http://*.test/*.pdf"}, "http://files.test/a/b/c.pdf"));
  EXPECT_FALSE(matches({"*#*"}, "http://a.test/x#frag"));
}

TEST(UrlMatches, AnyOfSeveralGlobsAndNoneOfAnEmptyList) {
  EXPECT_TRUE(matches({"a.test", "b.test"}, "http://b.test/"));
  EXPECT_FALSE(matches({"a.test", "b.test"}, "http://c.test/"));
  EXPECT_FALSE(matches({}, "http://a.test/"));
}

TEST(IsPrivateAddress, Ipv4Ranges) {
  for (const char* a :
       {"127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.64.0.1", "100.127.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1",
        "255.255.255.255", "192.0.0.8", "198.18.0.1", "192.0.2.1", "198.51.100.1", "203.0.113.1"})
    EXPECT_TRUE(isPrivateAddress(a)) << a;
  for (const char* a : {"8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "100.63.255.255",
                        "100.128.0.1", "192.169.0.1", "169.253.0.1", "93.184.216.34"})
    EXPECT_FALSE(isPrivateAddress(a)) << a;
}

TEST(IsPrivateAddress, Ipv6RangesAndEmbeddedIpv4) {
  for (const char* a : {"::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1",
                        "ff02::1", "2001:db8::1", "::ffff:10.0.0.1", "::ffff:127.0.0.1",
                        "::127.0.0.1", "64:ff9b::a00:1", "2002:7f00:1::", "2001::1", "100::1"})
    EXPECT_TRUE(isPrivateAddress(a)) << a;
  for (const char* a : {"2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8",
                        "64:ff9b::808:808", "2002:808:808::"})
    EXPECT_FALSE(isPrivateAddress(a)) << a;
}

TEST(IsPrivateAddress, SomethingThatIsNoAddressCountsAsPrivate) {
  EXPECT_TRUE(isPrivateAddress("example.com"));
  EXPECT_TRUE(isPrivateAddress(""));
  EXPECT_TRUE(isPrivateAddress("300.1.1.1"));
}

TEST(ResolveHost, LocalhostNamesAreLoopbackWithoutDns) {
  for (const char* name : {"localhost", "localhost.", "a.localhost", "b.a.localhost."})
    EXPECT_TRUE(isLocalhostName(name)) << name;
  for (const char* name : {"localhost.example", "notlocalhost", "localhostx"})
    EXPECT_FALSE(isLocalhostName(name)) << name;
  auto found = resolveHost(parseUrl("http://evil.localhost./")->host, 8080);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ(addressText((*found)[0]), "127.0.0.1");
  EXPECT_EQ(addressText((*found)[1]), "::1");
  EXPECT_EQ(ntohs(reinterpret_cast<const sockaddr_in*>(&(*found)[0])->sin_port), 8080);
  auto literal = resolveHost(parseUrl("http://[::ffff:7f00:1]/")->host, 80);
  ASSERT_TRUE(literal);
  EXPECT_EQ(addressText((*literal)[0]), "::ffff:127.0.0.1");
}

TEST(CheckUrl, BadUrlsAndOtherSchemesAre400WithoutCode) {
  const UrlRules none;
  for (const char* url : {"not a url", "ftp://example.com/", "file:///etc/passwd",
                          "javascript:alert(1)", "data:text/html,hi", "http://", "http://?x",
                          "chrome://version", "view-source:http://a.test/", "blob:http://a/b",
                          "about:config", "http://[::1/", "http://0x100000000/"}) {
    auto v = checkUrl(url, none);
    ASSERT_TRUE(v) << url;
    EXPECT_EQ(v->status, 400) << url;
    EXPECT_EQ(v->code, "") << url;
  }
}

TEST(CheckUrl, HttpHttpsAndAboutBlankPassWithoutPolicy) {
  const UrlRules none;
  EXPECT_FALSE(checkUrl("http://127.0.0.1:1234/", none));
  EXPECT_FALSE(checkUrl("https://example.com/a", none));
  EXPECT_FALSE(checkUrl("about:blank", none));
  EXPECT_FALSE(checkUrl("ABOUT:BLANK", none));
  EXPECT_FALSE(checkUrl(" http:example.com ", none));
  EXPECT_FALSE(checkUrl("http:///host/path", none));  // slashes skipped: host "host"
}

TEST(CheckUrl, DenyNamesTheGlobAndIsCheckedBeforeAllow) {
  UrlRules rules;
  rules.allow = Globs{"*.example.com"};
  rules.deny = Globs{"secret.example.com", "*/admin/*"};
  EXPECT_FALSE(checkUrl("https://www.example.com/", rules));
  auto host = checkUrl("https://SECRET.example.com./", rules);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->status, 403);
  EXPECT_EQ(host->code, "url_not_allowed");
  EXPECT_EQ(host->rule, "url_deny secret.example.com");
  auto path = checkUrl("https://www.example.com/x/..\\admin/", rules);
  ASSERT_TRUE(path);
  EXPECT_EQ(path->rule, "url_deny */admin/*");
  auto other = checkUrl("https://example.org/", rules);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->rule, "url_allow");
  EXPECT_NE(other->message.find("not allowed"), std::string::npos) << other->message;
}

TEST(CheckUrl, DisguisedLoopbackIsJudgedAsLoopback) {
  UrlRules rules;
  rules.deny = Globs{"127.0.0.1", "localhost"};
  for (const char* url :
       {"http://127.0.0.1:9000\\@allowed.example/", "http://127.0.\t0.1/", "http://2130706433/",
        "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://127.1/", "http://[::ffff:127.0.0.1]/",
        "http://localhost./", "HTTP://LOCALHOST/", "http://%31%32%37.0.0.1/", "http:127.0.0.1/",
        "http://"
        "\xef\xbd\x8c\xef\xbd\x8f\xef\xbd\x83\xef\xbd\x81\xef\xbd\x8c\xef\xbd"
        "\x88\xef\xbd"
        "\x8f\xef\xbd\x93\xef\xbd\x94/"}) {
    auto v = checkUrl(url, rules);
    ASSERT_TRUE(v) << url;
    EXPECT_EQ(v->status, 403) << url;
    EXPECT_EQ(v->rule.rfind("url_deny ", 0), 0u) << url;
  }
}

TEST(CheckUrl, BlockPrivateNetworksJudgesAddresses) {
  UrlRules rules;
  EXPECT_FALSE(checkUrl("http://127.0.0.1:8080/", rules));  // default: off
  rules.block_private = true;
  for (const char* url :
       {"http://127.0.0.1:8080/", "http://10.0.0.1/", "http://[::1]:80/",
        "http://169.254.169.254/latest/meta-data", "http://localhost/", "http://localhost./",
        "http://evil.localhost/", "http://0/", "http://[::ffff:192.168.0.1]/", "http://0x7f.1/"}) {
    auto v = checkUrl(url, rules);
    ASSERT_TRUE(v) << url;
    EXPECT_EQ(v->status, 403) << url;
    EXPECT_EQ(v->rule, "block_private_networks") << url;
  }
  EXPECT_FALSE(checkUrl("http://8.8.8.8/", rules));  // literals need no DNS
  EXPECT_FALSE(checkUrl("https://[2606:4700:4700::1111]/", rules));
  EXPECT_FALSE(checkUrl("about:blank", rules));
}

TEST(DecideConnection, HostGlobsAndAddresses) {
  UrlRules rules;
  rules.deny = Globs{"*.internal", "*/secret*"};
  auto denied = decideConnection("db.internal", 80, rules);
  ASSERT_TRUE(denied.refusal);
  EXPECT_EQ(denied.refusal->rule, "url_deny *.internal");
  // A glob with '/' is the interception's: the connection itself passes.
  auto open = decideConnection("127.0.0.1", 8080, rules);
  EXPECT_FALSE(open.refusal);
  ASSERT_EQ(open.addresses.size(), 1u);
  EXPECT_EQ(addressText(open.addresses[0]), "127.0.0.1");
  auto v6 = decideConnection("[::1]", 80, rules);
  EXPECT_FALSE(v6.refusal);
  EXPECT_EQ(addressText(v6.addresses.at(0)), "::1");
  auto junk = decideConnection("a b", 80, rules);
  ASSERT_TRUE(junk.refusal);
  EXPECT_EQ(junk.refusal->status, 400);
}

TEST(DecideConnection, AllowGlobsWithAPathAdmitTheirAuthorityOnly) {
  UrlRules rules;
  rules.allow = Globs{"https://docs.localhost/*", "http://127.0.0.1:8080/app/*", "::1"};
  EXPECT_FALSE(decideConnection("docs.localhost", 443, rules).refusal);
  EXPECT_FALSE(decideConnection("[::1]", 80, rules).refusal);
  EXPECT_FALSE(decideConnection("127.0.0.1", 8080, rules).refusal);
  auto other_port = decideConnection("127.0.0.1", 9090, rules);
  ASSERT_TRUE(other_port.refusal);
  EXPECT_EQ(other_port.refusal->rule, "url_allow");
  auto other_host = decideConnection("localhost", 8080, rules);
  ASSERT_TRUE(other_host.refusal);
  EXPECT_EQ(other_host.refusal->rule, "url_allow");
  // A glob that pins no host down leaves the judgement to the interception.
  rules.allow = Globs{"*/public/*"};
  EXPECT_FALSE(decideConnection("localhost", 1, rules).refusal);
}

TEST(DecideConnection, BlockPrivateNetworksRefusesLoopbackNamesAndLiterals) {
  UrlRules rules;
  rules.block_private = true;
  for (const char* host : {"localhost", "localhost.", "evil.localhost", "127.0.0.1", "0x7f.1",
                           "[::ffff:7f00:1]", "[::1]", "0", "10.0.0.1"}) {
    auto d = decideConnection(host, 80, rules);
    ASSERT_TRUE(d.refusal) << host;
    EXPECT_EQ(d.refusal->rule, "block_private_networks") << host;
    EXPECT_TRUE(d.addresses.empty()) << host;
  }
  auto open = decideConnection("8.8.8.8", 443, rules);
  EXPECT_FALSE(open.refusal);
  EXPECT_EQ(open.addresses.size(), 1u);
}

}  // namespace
}  // namespace abx::plugins::browser
