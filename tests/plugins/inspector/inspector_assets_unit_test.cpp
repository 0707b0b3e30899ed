// Unit: the inspector page's embedded files and how they are served — the
// exact set of assets, their content types and headers, names that are not
// assets (dot segments, separators, case) refused, and the rules the page's
// own files keep: no inline script or style, no markup from strings, no
// storage for the token, nothing from another origin.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "inspector_assets.h"
#include "inspector_routes.h"

namespace {

using abx::plugins::inspector::contentTypeOf;
using abx::plugins::inspector::embeddedAssets;
using abx::plugins::inspector::findAsset;
using abx::plugins::inspector::kContentSecurityPolicy;
using abx::plugins::inspector::securityHeaders;
using abx::plugins::inspector::serveAsset;
using abx::plugins::inspector::servePage;
using ::testing::HasSubstr;
using ::testing::Not;

std::string header(const abx::sdk::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return {};
}

abx::sdk::Request assetRequest(const std::string& name) {
  abx::sdk::Request r;
  r.method = "GET";
  r.path = "/ui/" + name;
  r.path_params = {{"asset", name}};
  return r;
}

TEST(InspectorAssets, TheFilesOfTheAssetsFolderAreEmbedded) {
  std::set<std::string> names;
  for (const auto& a : embeddedAssets()) {
    names.insert(std::string(a.name));
    EXPECT_FALSE(a.body.empty()) << a.name;
  }
  for (const char* expected : {"index.html", "inspector.css", "inspector.js", "api.js", "dom.js",
                               "panels.js", "sessions.js", "session_view.js"})
    EXPECT_TRUE(names.count(expected)) << expected;
}

TEST(InspectorAssets, ContentTypesByExtension) {
  EXPECT_EQ(contentTypeOf("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(contentTypeOf("inspector.css"), "text/css; charset=utf-8");
  EXPECT_EQ(contentTypeOf("api.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(contentTypeOf("x.png"), "application/octet-stream");
}

TEST(InspectorAssets, ServesThePageAndItsFilesWithTheHeaders) {
  abx::sdk::Request page;
  page.path = "/ui";
  auto r = servePage(embeddedAssets(), page);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_THAT(r.body, HasSubstr("<script type=\"module\" src=\"/ui/inspector.js\"></script>"));
  EXPECT_EQ(header(r, "Content-Security-Policy"), kContentSecurityPolicy);
  EXPECT_EQ(header(r, "X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(header(r, "Referrer-Policy"), "no-referrer");
  EXPECT_EQ(header(r, "Cache-Control"), "no-store");
  auto js = serveAsset(embeddedAssets(), assetRequest("inspector.js"));
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(js.headers, securityHeaders());
}

TEST(InspectorAssets, TheCspAllowsOnlyTheServerItself) {
  for (const char* directive :
       {"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
        "img-src 'self' data:", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"})
    EXPECT_THAT(std::string(kContentSecurityPolicy), HasSubstr(directive));
  EXPECT_THAT(std::string(kContentSecurityPolicy), Not(HasSubstr("unsafe")));
}

TEST(InspectorAssets, NamesThatAreNotAssetsAre404) {
  for (const char* name : {"", ".", "..", "../index.html", "..%2Findex.html", "/index.html",
                           "index.html/", "INDEX.HTML", "index.html ", "nope.js", "api"}) {
    EXPECT_FALSE(findAsset(embeddedAssets(), name)) << name;
    auto r = serveAsset(embeddedAssets(), assetRequest(name));
    EXPECT_EQ(r.status, 404) << name;
    EXPECT_EQ(header(r, "X-Content-Type-Options"), "nosniff") << name;
  }
  EXPECT_EQ(serveAsset(embeddedAssets(), assetRequest("index.html")).status, 200);
}

// What the page's files must never contain, and why.
TEST(InspectorAssets, ThePageKeepsItsOwnRules) {
  const std::vector<std::pair<std::regex, std::string>> banned = {
      {std::regex(R"(innerHTML|outerHTML|insertAdjacentHTML|document\.write)"),
       "markup from strings (agent output is attacker-controlled)"},
      {std::regex(R"(localStorage|sessionStorage|indexedDB|document\.cookie)"),
       "storage that would keep the token"},
      {std::regex(R"(\beval\(|new Function)"), "code from strings"},
      {std::regex(R"(https?://)"), "anything from another origin"},
      {std::regex(R"(<script(?![^>]*\bsrc=))"), "an inline script"},
      {std::regex(R"(<style|\sstyle=|\son[a-z]+=)"), "inline style or handlers"},
  };
  for (const auto& a : embeddedAssets()) {
    const std::string body(a.body);
    for (const auto& [pattern, why] : banned)
      EXPECT_FALSE(std::regex_search(body, pattern)) << a.name << ": " << why;
  }
}

// Every file the page or a module names is embedded (no 404 at run time).
TEST(InspectorAssets, EveryReferencedFileIsEmbedded) {
  const std::regex ref(R"((?:src|href)="/ui/([^"]+)\"|from '\./([^']+)')");
  int refs = 0;
  for (const auto& a : embeddedAssets()) {
    const std::string body(a.body);
    for (std::sregex_iterator it(body.begin(), body.end(), ref), end; it != end; ++it) {
      const std::string name = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      EXPECT_TRUE(findAsset(embeddedAssets(), name)) << a.name << " names " << name;
      ++refs;
    }
  }
  EXPECT_GE(refs, 8);
}

}  // namespace
