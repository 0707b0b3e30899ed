// Attack (issue 15): URL spellings that a string check reads as one host
// while Chromium (a WHATWG URL parser) loads another. The policy denies the
// loopback names; each spelling below is loopback for Chromium and must be
// refused with 403 url_not_allowed naming the rule — and the page server
// must never see the request. The same spellings are admitted when the
// policy allows 127.0.0.1 (judged as Chromium would, not merely refused).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plugins/browser/page_server.h"
#include "security/security_support.h"

namespace abx::testing::security {
namespace {

using ::testing::HasSubstr;

ServerOptions browserServer(const std::string& navigate_params) {
  return allPlugins("endpoints:\n  browser_navigate:\n    params: " + navigate_params + "\n",
                    {{"ABX_SERVER_ENABLED_GROUPS", "browser"}});
}

std::string withPort(std::string text, int port) {
  for (auto at = text.find("{port}"); at != std::string::npos; at = text.find("{port}", at))
    text.replace(at, 6, std::to_string(port));
  return text;
}

/** JSON string literals (already escaped): every one is http://127.0.0.1:{port}/sNN for Chromium.
 */
const std::vector<std::string> kLoopbackSpellings = {
    R"(http://127.0.0.1:{port}\\@allowed.example/s01)",   // '\' ends the authority
    R"(http://127.0.\t0.1:{port}/s02)",                   // tab removed
    R"(http://local\nhost:{port}/s03)",                   // newline removed
    R"(http://allowed.example:pw@127.0.0.1:{port}/s04)",  // userinfo
    R"(http://2130706433:{port}/s05)",                    // one decimal number
    R"(http://0177.0.0.1:{port}/s06)",                    // octal part
    R"(http://0x7f.0.0.1:{port}/s07)",                    // hex part
    R"(http://0x7F000001:{port}/s08)",                    // one hex number
    R"(http://127.1:{port}/s09)",                         // two parts
    R"(http://[::ffff:127.0.0.1]:{port}/s10)",            // IPv4-mapped IPv6
    R"(http://[::ffff:7f00:1]:{port}/s11)",               // the same, hex
    R"(http://localhost.:{port}/s12)",                    // trailing dot
    R"(http://127.0.0.1.:{port}/s13)",                    // trailing dot on an address
    R"(HTTP://LOCALHOST:{port}/s14)",                     // upper case
    "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54:{port}/s15",  // fullwidth
    "http://\uff11\uff12\uff17\u3002\uff10\u3002\uff10\u3002\uff11:{port}/s16",  // IDN digits
    R"(http://%31%32%37.0.0.1:{port}/s17)",              // percent-encoded host
    R"(http://%6c%6f%63%61%6c%68%6f%73%74:{port}/s18)",  // percent-encoded name
    R"(http:127.0.0.1:{port}/s19)",                      // no slashes
    R"(http:\\\\127.0.0.1:{port}/s20)",                  // backslashes for slashes
    R"( \u0001http://127.1:{port}/s21 )",                // C0 and spaces around
    R"(http://0x7f.1:{port}/s22)",                       // hex, two parts
    R"(http://[0:0:0:0:0:ffff:127.0.0.1]:{port}/s23)",   // mapped, long form
    R"(http://LocalHost.:{port}/s24)",                   // mixed case and dot
};

TEST(SecurityBrowserUrlSpelling, LoopbackInDisguiseIsDenied) {
  PageServer pages;
  ServerProcess server(browserServer(R"({url_deny: ["127.0.0.1", "localhost"]})"));
  std::vector<std::string> leaked;
  for (const auto& spelling : kLoopbackSpellings) {
    const auto url = withPort(spelling, pages.port());
    auto r = http(server.port(), "POST", "/browser/navigate", "{\"url\":\"" + url + "\"}");
    EXPECT_EQ(r.status, 403) << url << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("url_not_allowed")) << url;
    EXPECT_THAT(r.body, HasSubstr("\"rule\":\"url_deny")) << url << " " << r.body;
    const auto tag = url.substr(url.rfind("/s"), 4);
    if (pages.reached(tag)) leaked.push_back(url);
  }
  EXPECT_THAT(leaked, ::testing::IsEmpty()) << ::testing::PrintToString(pages.requests());
}

TEST(SecurityBrowserUrlSpelling, TheSameSpellingsLoadWhenLoopbackIsAllowed) {
  std::map<std::string, PageReply> served;
  for (int i = 1; i <= 24; ++i) {
    char path[8];
    std::snprintf(path, sizeof path, "/s%02d", i);
    served[path] = {200, "<title>loaded</title>", {}};
  }
  PageServer pages(served);
  ServerProcess server(browserServer(R"({url_allow: ["127.0.0.1", "localhost"]})"));
  for (const auto& spelling : kLoopbackSpellings) {
    const auto url = withPort(spelling, pages.port());
    if (url.find("/s01") != std::string::npos) continue;  // its path is /@allowed.example/s01
    auto r = http(server.port(), "POST", "/browser/navigate", "{\"url\":\"" + url + "\"}");
    EXPECT_EQ(r.status, 200) << url << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("\"title\":\"loaded\"")) << url << " " << r.body;
  }
  // A host that only looks allowed after a string cut is not allowed.
  auto foreign = http(server.port(), "POST", "/browser/navigate",
                      R"({"url":"http://allowed.example\\@127.0.0.1/"})");
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_THAT(foreign.body, HasSubstr("\"rule\":\"url_allow\""));
}

TEST(SecurityBrowserUrlSpelling, MalformedHostsAre400) {
  ServerProcess server(browserServer(R"({url_deny: ["*.internal"]})"));
  for (const char* url : {R"(http://[::1/)", R"(http://1.2.3.4.5.6/)", R"(http://0x100000000/)",
                          R"(http://a b/)", R"(http://%zz/)", R"(http://exa%00mple/)",
                          R"(http://[1::2::3]/)", R"(http://256.256.256.256/)", R"(http:///)",
                          R"(http://:80/)", R"(http://host:99999/)", R"(http://a<b/)"}) {
    auto r =
        http(server.port(), "POST", "/browser/navigate", std::string("{\"url\":\"") + url + "\"}");
    EXPECT_EQ(r.status, 400) << url << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr("ValueError")) << url;
  }
}

}  // namespace
}  // namespace abx::testing::security
