// RouteTable tests: literal and `{param}` matching, percent-decoded params,
// registration-order semantics (incl. the literal fast path), validation
// errors, and truncate() restoring the table to an earlier mark.
#include "routing/route_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "abx/sdk/text_codecs.h"

namespace {

using abx::kernel::RouteTable;
using abx::kernel::splitPath;
using abx::sdk::percentDecode;
using abx::sdk::RouteSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

RouteSpec spec(std::string method, std::string path, std::string id, std::string group = "g") {
  RouteSpec s;
  s.method = std::move(method);
  s.path = std::move(path);
  s.endpoint = std::move(id);
  s.group = std::move(group);
  s.handler = [](const abx::sdk::Request&) { return abx::sdk::Response::json("{}"); };
  return s;
}

void mustAdd(RouteTable& table, RouteSpec s, std::string owner = "test") {
  auto id = s.endpoint;
  auto status = table.add(std::move(s), std::move(owner));
  ASSERT_TRUE(status.isOk()) << id << ": " << status.message();
}

/** The endpoint id @p method @p path resolves to, or "" when nothing matches. */
std::string matched(const RouteTable& table, std::string_view method, std::string_view path) {
  auto m = table.match(method, path);
  return m ? m->route->spec.endpoint : std::string();
}

TEST(SplitPath, SegmentsIgnoreEmptyParts) {
  EXPECT_TRUE(splitPath("/").empty());
  EXPECT_TRUE(splitPath("").empty());
  EXPECT_THAT(splitPath("/a/b"), ElementsAre("a", "b"));
  EXPECT_THAT(splitPath("//a///b/"), ElementsAre("a", "b"));
}

TEST(PercentDecode, DecodesEscapesAndRejectsMalformedOnes) {
  std::string out;
  ASSERT_TRUE(percentDecode("a%20b%2Fc%41", out));
  EXPECT_EQ(out, "a b/cA");
  ASSERT_TRUE(percentDecode("plain+kept", out));
  EXPECT_EQ(out, "plain+kept");  // '+' is a space only in query strings
  ASSERT_TRUE(percentDecode("%e2%82%ac", out));
  EXPECT_EQ(out, "\xe2\x82\xac");
  EXPECT_FALSE(percentDecode("%zz", out));
  EXPECT_FALSE(percentDecode("abc%4", out));
  EXPECT_FALSE(percentDecode("%", out));
}

TEST(RouteTableMatch, LiteralRoutes) {
  RouteTable table;
  mustAdd(table, spec("GET", "/", "root"));
  mustAdd(table, spec("GET", "/health", "health"));
  mustAdd(table, spec("POST", "/capabilities/check", "capabilities_check"));

  EXPECT_EQ(matched(table, "GET", "/"), "root");
  EXPECT_EQ(matched(table, "GET", "/health"), "health");
  EXPECT_EQ(matched(table, "POST", "/capabilities/check"), "capabilities_check");
  EXPECT_EQ(matched(table, "GET", "/healthz"), "");
  EXPECT_EQ(matched(table, "GET", "/health/x"), "");
  EXPECT_EQ(matched(table, "GET", "/capabilities"), "");
  auto m = table.match("GET", "/health");
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->params.empty());
}

TEST(RouteTableMatch, MethodMismatchIsNoMatch) {
  RouteTable table;
  mustAdd(table, spec("GET", "/health", "health"));
  mustAdd(table, spec("POST", "/process/{pid}/signal", "process_signal"));
  EXPECT_EQ(matched(table, "POST", "/health"), "");
  EXPECT_EQ(matched(table, "DELETE", "/health"), "");
  EXPECT_EQ(matched(table, "get", "/health"), "");
  EXPECT_EQ(matched(table, "GET", "/process/1/signal"), "");
  EXPECT_EQ(matched(table, "POST", "/process/1/signal"), "process_signal");
}

TEST(RouteTableMatch, ParamsMatchExactlyOneSegment) {
  RouteTable table;
  mustAdd(table, spec("POST", "/process/{pid}/signal", "process_signal"));
  mustAdd(table, spec("GET", "/pty/{session_id}", "pty_get"));

  auto m = table.match("POST", "/process/42/signal");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route->spec.endpoint, "process_signal");
  ASSERT_EQ(m->params.size(), 1u);
  EXPECT_EQ(m->params.at("pid"), "42");

  EXPECT_EQ(matched(table, "POST", "/process/42"), "");
  EXPECT_EQ(matched(table, "POST", "/process/42/signal/9"), "");
  EXPECT_EQ(matched(table, "POST", "/process/42/kill"), "");
  EXPECT_EQ(matched(table, "GET", "/pty"), "");
  EXPECT_EQ(matched(table, "GET", "/pty/a/b"), "");
  auto p = table.match("GET", "/pty/abc-123");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->params.at("session_id"), "abc-123");
}

TEST(RouteTableMatch, SeveralParams) {
  RouteTable table;
  mustAdd(table, spec("GET", "/v1/agents/{agent}/sessions/{session}", "session_get"));
  auto m = table.match("GET", "/v1/agents/a1/sessions/s2");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->params.at("agent"), "a1");
  EXPECT_EQ(m->params.at("session"), "s2");
}

TEST(RouteTableMatch, ParamsArePercentDecoded) {
  RouteTable table;
  mustAdd(table, spec("POST", "/commands/{name}", "commands_run"));
  auto m = table.match("POST", "/commands/hello%20world%2Fx");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->params.at("name"), "hello world/x");

  // A malformed escape is passed through as received rather than dropped.
  auto bad = table.match("POST", "/commands/50%zz");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->params.at("name"), "50%zz");

  // '+' stays a '+' in a path segment.
  auto plus = table.match("POST", "/commands/a+b");
  ASSERT_TRUE(plus);
  EXPECT_EQ(plus->params.at("name"), "a+b");
}

TEST(RouteTableOrder, TemplateRegisteredFirstShadowsLaterLiteral) {
  RouteTable table;
  mustAdd(table, spec("GET", "/items/{id}", "items_get"));
  mustAdd(table, spec("GET", "/items/special", "items_special"));
  auto m = table.match("GET", "/items/special");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route->spec.endpoint, "items_get");
  EXPECT_EQ(m->params.at("id"), "special");
  EXPECT_EQ(matched(table, "GET", "/items/other"), "items_get");
  // Still registered, just unreachable by that path.
  ASSERT_NE(table.findEndpoint("items_special"), nullptr);
}

TEST(RouteTableOrder, LiteralRegisteredFirstWinsOverLaterTemplate) {
  RouteTable table;
  mustAdd(table, spec("GET", "/items/special", "items_special"));
  mustAdd(table, spec("GET", "/items/{id}", "items_get"));
  auto m = table.match("GET", "/items/special");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->route->spec.endpoint, "items_special");
  EXPECT_TRUE(m->params.empty());
  auto other = table.match("GET", "/items/other");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->route->spec.endpoint, "items_get");
  EXPECT_EQ(other->params.at("id"), "other");
}

TEST(RouteTableOrder, TemplateOfAnotherMethodDoesNotShadow) {
  RouteTable table;
  mustAdd(table, spec("DELETE", "/items/{id}", "items_delete"));
  mustAdd(table, spec("GET", "/items/special", "items_special"));
  EXPECT_EQ(matched(table, "GET", "/items/special"), "items_special");
  EXPECT_EQ(matched(table, "DELETE", "/items/special"), "items_delete");
}

TEST(RouteTableOrder, EarlierTemplateWinsOverLaterTemplate) {
  RouteTable table;
  mustAdd(table, spec("GET", "/a/{x}/c", "first"));
  mustAdd(table, spec("GET", "/a/b/{y}", "second"));
  EXPECT_EQ(matched(table, "GET", "/a/b/c"), "first");
  EXPECT_EQ(matched(table, "GET", "/a/b/d"), "second");
}

TEST(RouteTableOrder, ShadowedLiteralKeepsItsPlaceAmongLaterRoutes) {
  // literal(0) < template(1) < literal shadowed by 1 (2): /a/x is the literal,
  // /a/y the template, although /a/y was registered as its own literal.
  RouteTable table;
  mustAdd(table, spec("GET", "/a/x", "ax"));
  mustAdd(table, spec("GET", "/a/{p}", "ap"));
  mustAdd(table, spec("GET", "/a/y", "ay"));
  EXPECT_EQ(matched(table, "GET", "/a/x"), "ax");
  EXPECT_EQ(matched(table, "GET", "/a/y"), "ap");
  EXPECT_EQ(matched(table, "GET", "/a/z"), "ap");
}

TEST(RouteTableAdd, RecordsOwnerIndexAndSegments) {
  RouteTable table;
  mustAdd(table, spec("GET", "/health", "health"), "core");
  mustAdd(table, spec("GET", "/files/{path}/stat", "files_stat"), "abx.files");
  ASSERT_EQ(table.size(), 2u);
  const auto* r = table.findEndpoint("files_stat");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->owner, "abx.files");
  EXPECT_EQ(r->index, 1u);
  ASSERT_EQ(r->segments.size(), 3u);
  EXPECT_EQ(r->segments[0].text, "files");
  EXPECT_FALSE(r->segments[0].param);
  EXPECT_EQ(r->segments[1].text, "path");
  EXPECT_TRUE(r->segments[1].param);
  EXPECT_EQ(table.findEndpoint("health")->owner, "core");
  EXPECT_EQ(table.findEndpoint("health")->index, 0u);
  EXPECT_EQ(table.findEndpoint("nope"), nullptr);
  EXPECT_EQ(table.routes()[1].get(), r);
}

struct BadRoute {
  const char* name;
  RouteSpec spec;
  const char* message;  // substring of the error
};

std::vector<BadRoute> badRoutes() {
  std::vector<BadRoute> out;
  out.push_back({"method", spec("FETCH", "/x", "x"), "unsupported method 'FETCH'"});
  out.push_back({"lowercase_method", spec("get", "/x", "x"), "unsupported method 'get'"});
  out.push_back({"head", spec("HEAD", "/x", "x"), "unsupported method 'HEAD'"});
  out.push_back({"trailing_slash", spec("GET", "/x/", "x"), "must start with '/' and not end"});
  out.push_back({"no_leading_slash", spec("GET", "x", "x"), "must start with '/'"});
  out.push_back({"empty_path", spec("GET", "", "x"), "must start with '/'"});
  // Requests are normalised before matching: these could never be reached.
  out.push_back({"empty_segment", spec("GET", "/a//b", "x"), "could never match"});
  out.push_back({"query", spec("GET", "/a?b=1", "x"), "could never match"});
  out.push_back({"fragment", spec("GET", "/a#b", "x"), "could never match"});
  out.push_back(
      {"param_prefix", spec("GET", "/a/x{id}", "x"), "a parameter must be a whole segment"});
  out.push_back(
      {"param_suffix", spec("GET", "/a/{id}.json", "x"), "a parameter must be a whole segment"});
  out.push_back({"stray_brace", spec("GET", "/a/}", "x"), "a parameter must be a whole segment"});
  out.push_back({"empty_param", spec("GET", "/a/{}", "x"), "bad parameter '{}'"});
  out.push_back({"dash_param", spec("GET", "/a/{b-c}", "x"), "bad parameter '{b-c}'"});
  out.push_back({"bad_id", spec("GET", "/x", "bad-id"), "endpoint id must be [A-Za-z0-9_]+"});
  out.push_back({"empty_id", spec("GET", "/x", ""), "endpoint id must be"});
  out.push_back({"no_group", spec("GET", "/x", "x", ""), "group is required"});
  auto no_handler = spec("GET", "/x", "x");
  no_handler.handler = nullptr;
  out.push_back({"no_handler", no_handler, "no handler for a plain route"});
  auto no_stream = spec("GET", "/x", "x");
  no_stream.streaming = true;  // has a plain handler, but no stream_handler
  out.push_back({"no_stream_handler", no_stream, "no handler for a streaming route"});
  return out;
}

TEST(RouteTableValidation, EachBadSpecIsRejectedAndLeavesNoTrace) {
  for (auto& bad : badRoutes()) {
    SCOPED_TRACE(bad.name);
    RouteTable table;
    mustAdd(table, spec("GET", "/health", "health"));
    auto status = table.add(bad.spec, "test");
    EXPECT_FALSE(status.isOk());
    EXPECT_EQ(status.type(), "ValueError");
    EXPECT_THAT(status.message(), HasSubstr(bad.message));
    EXPECT_EQ(table.size(), 1u);
    EXPECT_EQ(matched(table, "GET", "/health"), "health");
  }
}

TEST(RouteTableValidation, StreamingRouteNeedsOnlyAStreamHandler) {
  RouteTable table;
  auto s = spec("GET", "/stream", "stream");
  s.streaming = true;
  s.handler = nullptr;
  s.stream_handler = [](const abx::sdk::Request&, abx::sdk::SseStream&) {
    return std::optional<abx::sdk::Response>();
  };
  EXPECT_TRUE(table.add(std::move(s), "test").isOk());
}

TEST(RouteTableValidation, DuplicateEndpointId) {
  RouteTable table;
  mustAdd(table, spec("GET", "/a", "dup"));
  auto status = table.add(spec("GET", "/b", "dup"), "test");
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.message(), "duplicate endpoint id 'dup'");
  EXPECT_EQ(matched(table, "GET", "/b"), "");
  EXPECT_EQ(table.findEndpoint("dup")->spec.path, "/a");
}

TEST(RouteTableValidation, DuplicateMethodAndPath) {
  RouteTable table;
  mustAdd(table, spec("GET", "/a", "first"));
  mustAdd(table, spec("GET", "/p/{x}", "param_first"));
  auto literal = table.add(spec("GET", "/a", "second"), "test");
  ASSERT_FALSE(literal.isOk());
  EXPECT_THAT(literal.message(), HasSubstr("GET /a is already registered by first"));
  // Templates of the same shape collide whatever their parameter names.
  auto param = table.add(spec("GET", "/p/{y}", "param_second"), "test");
  ASSERT_FALSE(param.isOk());
  EXPECT_THAT(param.message(), HasSubstr("is already registered by param_first"));
  // The failed ids were not taken.
  EXPECT_EQ(table.findEndpoint("second"), nullptr);
  EXPECT_TRUE(table.add(spec("GET", "/b", "second"), "test").isOk());
  // Same path, another method, is a different route.
  EXPECT_TRUE(table.add(spec("POST", "/a", "post_a"), "test").isOk());
  // A literal and a template of the same shape are different routes.
  EXPECT_TRUE(table.add(spec("GET", "/p/literal", "p_literal"), "test").isOk());
  EXPECT_EQ(table.size(), 5u);
}

TEST(RouteTableTruncate, DropsLaterRoutesAndKeepsEarlierOnesMatching) {
  RouteTable table;
  mustAdd(table, spec("GET", "/health", "health"), "core");
  mustAdd(table, spec("GET", "/items/{id}", "items_get"), "core");
  mustAdd(table, spec("GET", "/items/special", "items_special"), "core");  // shadowed
  const std::size_t mark = table.size();
  mustAdd(table, spec("GET", "/late", "late"), "plugin");
  mustAdd(table, spec("GET", "/late/{x}", "late_x"), "plugin");
  mustAdd(table, spec("POST", "/health", "health_post"), "plugin");
  ASSERT_EQ(table.size(), 6u);
  ASSERT_EQ(matched(table, "GET", "/late"), "late");

  table.truncate(mark);

  EXPECT_EQ(table.size(), mark);
  EXPECT_EQ(matched(table, "GET", "/late"), "");
  EXPECT_EQ(matched(table, "GET", "/late/1"), "");
  EXPECT_EQ(matched(table, "POST", "/health"), "");
  EXPECT_EQ(table.findEndpoint("late"), nullptr);
  EXPECT_EQ(table.findEndpoint("late_x"), nullptr);
  // Earlier routes: literal fast path, template, and the shadowing relation.
  EXPECT_EQ(matched(table, "GET", "/health"), "health");
  EXPECT_EQ(matched(table, "GET", "/items/7"), "items_get");
  EXPECT_EQ(matched(table, "GET", "/items/special"), "items_get");
  ASSERT_NE(table.findEndpoint("health"), nullptr);
  EXPECT_EQ(table.findEndpoint("health")->owner, "core");
  EXPECT_EQ(table.findEndpoint("items_special")->index, 2u);
  EXPECT_TRUE(static_cast<bool>(table.findEndpoint("health")->spec.handler));

  // The dropped ids and method+paths are free again.
  mustAdd(table, spec("GET", "/late", "late"), "plugin2");
  EXPECT_EQ(matched(table, "GET", "/late"), "late");
  EXPECT_EQ(table.findEndpoint("late")->owner, "plugin2");
  EXPECT_EQ(table.findEndpoint("late")->index, 3u);
}

TEST(RouteTableTruncate, ToZeroEmptiesAndAtOrPastSizeIsNoOp) {
  RouteTable table;
  mustAdd(table, spec("GET", "/a", "a"));
  mustAdd(table, spec("GET", "/b/{x}", "b"));
  table.truncate(2);
  EXPECT_EQ(table.size(), 2u);
  table.truncate(10);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(matched(table, "GET", "/a"), "a");
  EXPECT_EQ(matched(table, "GET", "/b/1"), "b");
  table.truncate(0);
  EXPECT_EQ(table.size(), 0u);
  EXPECT_EQ(matched(table, "GET", "/a"), "");
  EXPECT_EQ(matched(table, "GET", "/b/1"), "");
  mustAdd(table, spec("GET", "/a", "a"));
  EXPECT_EQ(matched(table, "GET", "/a"), "a");
}

TEST(RouteTableTruncate, LiteralAddedAfterMarkNoLongerShadowedAfterward) {
  // A template added after the mark must not keep shadowing a literal added
  // later still, once the template is gone.
  RouteTable table;
  mustAdd(table, spec("GET", "/x", "x"));
  mustAdd(table, spec("GET", "/t/{p}", "t_param"));
  table.truncate(1);
  mustAdd(table, spec("GET", "/t/lit", "t_lit"));
  EXPECT_EQ(matched(table, "GET", "/t/lit"), "t_lit");
  EXPECT_EQ(matched(table, "GET", "/t/other"), "");
}

}  // namespace
