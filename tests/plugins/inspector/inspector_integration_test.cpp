// Integration: the inspector group in the real server — /ui and its files
// answer without a token, with the Content-Security-Policy, nosniff,
// no-referrer and no-store headers and the right content types; anything
// under /ui that is not one of its files (dot segments, encoded slashes,
// unknown names) is a 404; /capabilities lists both routes as auth-free;
// a policy turns the group off.
#include <Poco/JSON/Object.h>
#include <Poco/JSON/Parser.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/server_process.h"

namespace abx::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kToken = "inspector-token-123";
constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

ServerOptions inspectorServer() {
  ServerOptions o;
  o.manifest = "plugins:\n  - name: inspector\n    file: abx_inspector.so\n    id: abx.inspector\n";
  o.env["ABX_SERVER_TOKEN"] = kToken;
  return o;
}

void expectPageHeaders(const HttpResult& r, const std::string& what) {
  EXPECT_EQ(r.headers.at("content-security-policy"), kCsp) << what;
  EXPECT_EQ(r.headers.at("x-content-type-options"), "nosniff") << what;
  EXPECT_EQ(r.headers.at("referrer-policy"), "no-referrer") << what;
  EXPECT_EQ(r.headers.at("cache-control"), "no-store") << what;
}

TEST(InspectorPage, ThePageAndItsFilesNeedNoToken) {
  ServerProcess server(inspectorServer());
  // The API itself still does.
  EXPECT_EQ(http(server.port(), "GET", "/capabilities").status, 401);
  for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
           {"/ui", "text/html; charset=utf-8"},
           {"/ui/", "text/html; charset=utf-8"},
           {"/ui/index.html", "text/html; charset=utf-8"},
           {"/ui/inspector.js", "text/javascript; charset=utf-8"},
           {"/ui/session_view.js", "text/javascript; charset=utf-8"},
           {"/ui/inspector.css", "text/css; charset=utf-8"}}) {
    auto r = http(server.port(), "GET", path);
    ASSERT_EQ(r.status, 200) << path << " " << r.body.substr(0, 200);
    EXPECT_EQ(r.headers["content-type"], type) << path;
    expectPageHeaders(r, path);
  }
  auto page = http(server.port(), "GET", "/ui");
  EXPECT_THAT(page.body, HasSubstr(R"(<input id="token" type="password")"));
  EXPECT_THAT(page.body, Not(HasSubstr(kToken)));
  EXPECT_THAT(http(server.port(), "GET", "/ui/api.js").body, HasSubstr("X-Access-Token"));
}

TEST(InspectorPage, AnythingElseUnderUiIs404) {
  ServerProcess server(inspectorServer());
  for (const char* path : {"/ui/..", "/ui/.", "/ui/nope.js", "/ui/%2e%2e", "/ui/..%2fcapabilities",
                           "/ui/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/ui/INDEX.HTML"}) {
    auto r = http(server.port(), "GET", path);
    EXPECT_EQ(r.status, 404) << path << " " << r.body;
    EXPECT_THAT(r.body, HasSubstr(R"("type":"ValueError")")) << path;
    EXPECT_EQ(r.headers["x-content-type-options"], "nosniff") << path;
  }
  // Two segments below /ui match no route at all; a client that does not
  // resolve dot segments itself reaches nothing else either.
  for (const char* target : {"/ui/../capabilities", "/ui/x/../../capabilities", "/ui/a/b"}) {
    const auto raw = rawHttp(server.port(), std::string("GET ") + target +
                                                " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "Connection: close\r\n\r\n");
    EXPECT_THAT(raw, HasSubstr("HTTP/1.1 404")) << target;
    EXPECT_THAT(raw, Not(HasSubstr("api_version"))) << target;
  }
  EXPECT_EQ(http(server.port(), "POST", "/ui", "{}").status, 404);
}

TEST(InspectorPage, CapabilitiesListTheRoutesAsAuthFree) {
  ServerProcess server(inspectorServer());
  auto r = http(server.port(), "GET", "/capabilities", "", {{"X-Access-Token", kToken}});
  ASSERT_EQ(r.status, 200) << r.body;
  Poco::JSON::Parser parser;
  auto caps = parser.parse(r.body).extract<Poco::JSON::Object::Ptr>();
  EXPECT_TRUE(caps->getObject("groups")->getValue<bool>("inspector"));
  EXPECT_FALSE(caps->getObject("group_summary")->getObject("inspector")->getValue<bool>("opt_in"));
  for (const char* id : {"inspector_page", "inspector_asset"}) {
    auto endpoint = caps->getObject("endpoints")->getObject(id);
    ASSERT_TRUE(endpoint) << id;
    EXPECT_FALSE(endpoint->getValue<bool>("auth_required")) << id;
    EXPECT_EQ(endpoint->getValue<std::string>("method"), "GET") << id;
    EXPECT_EQ(endpoint->getValue<std::string>("plugin"), "abx.inspector") << id;
  }
}

TEST(InspectorPage, ThePolicyCanTurnTheGroupOff) {
  ServerOptions o = inspectorServer();
  o.files["policy.yaml"] = "groups: {inspector: false}\n";
  o.args = {"--policy", "{dir}/policy.yaml"};
  ServerProcess server(o);
  for (const char* path : {"/ui", "/ui/inspector.js"}) {
    auto r = http(server.port(), "GET", path);
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_THAT(r.body, HasSubstr(R"("code":"endpoint_disabled")")) << path;
  }
}

}  // namespace
}  // namespace abx::testing
