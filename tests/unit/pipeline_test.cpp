// Pipeline tests: every rejection at its step with the exact status and body,
// the dispatch order of spec §3.2 (a request breaking several steps gets the
// earliest), the /v1 OpenAI error envelope, streaming, and the audit log.
#include "pipeline/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using abx::kernel::ApiError;
using abx::kernel::AuditLog;
using abx::kernel::AuditMode;
using abx::kernel::Authenticator;
using abx::kernel::checkScopes;
using abx::kernel::DefaultAdmission;
using abx::kernel::Dispatch;
using abx::kernel::Exchange;
using abx::kernel::GroupRecord;
using abx::kernel::Pipeline;
using abx::kernel::renderError;
using abx::kernel::RouteTable;
using abx::sdk::Request;
using abx::sdk::Response;
using abx::sdk::RouteSpec;
using abx::sdk::SseStream;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kToken = "s3cret-token";

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

class FakeSse final : public SseStream {
 public:
  bool begin() override {
    began = true;
    return true;
  }
  bool event(std::string_view name, std::string_view data) override {
    began = true;
    events.emplace_back(name, data);
    return true;
  }
  bool comment(std::string_view text) override {
    comments.emplace_back(text);
    return true;
  }
  bool open() const override { return true; }

  bool began = false;
  std::vector<std::pair<std::string, std::string>> events;
  std::vector<std::string> comments;
};

/** An in-memory request; records what the pipeline sends. */
class FakeExchange final : public Exchange {
 public:
  FakeExchange(std::string method, std::string target)
      : method_(std::move(method)), target_(std::move(target)) {}

  FakeExchange& header(std::string name, std::string value) {
    headers_.emplace_back(std::move(name), std::move(value));
    return *this;
  }
  FakeExchange& token(std::string value = kToken) {
    return header("X-Access-Token", std::move(value));
  }
  /** Sets the body and a matching Content-Length. */
  FakeExchange& body(std::string text) {
    body_ = std::move(text);
    length_ = static_cast<std::int64_t>(body_.size());
    return *this;
  }
  FakeExchange& contentLength(std::optional<std::int64_t> length) {
    length_ = length;
    return *this;
  }

  std::string_view method() const override { return method_; }
  std::string_view target() const override { return target_; }
  std::vector<std::string_view> headerValues(std::string_view name) const override {
    std::vector<std::string_view> out;
    for (const auto& [k, v] : headers_)
      if (iequals(k, name)) out.push_back(v);
    return out;
  }
  std::vector<std::pair<std::string, std::string>> headers() const override {
    std::vector<std::pair<std::string, std::string>> out;
    for (auto [k, v] : headers_) {
      for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.emplace_back(std::move(k), std::move(v));
    }
    return out;
  }
  std::optional<std::int64_t> contentLength() const override { return length_; }
  bool readBody(std::string& out, std::size_t length) override {
    ++body_reads;
    if (length > body_.size()) {
      out = body_;
      return false;
    }
    out = body_.substr(0, length);
    return true;
  }
  std::size_t readSome(char* buffer, std::size_t n) override {
    auto got = std::min(n, body_.size() - read_offset_);
    std::copy_n(body_.data() + read_offset_, got, buffer);
    read_offset_ += got;
    return got;
  }
  void send(const Response& response) override {
    sent.push_back(response);
    sent.back().headers.insert(sent.back().headers.end(), added.begin(), added.end());
  }
  void addResponseHeader(const std::string& name, const std::string& value) override {
    added.emplace_back(name, value);
  }
  std::string localAddress() const override { return "10.1.2.3"; }
  void stream(const std::function<std::optional<Response>(SseStream&)>& producer,
              std::shared_ptr<void> = {}) override {
    streamed = true;
    auto reply = producer(sse);
    if (reply && !sse.began) sent.push_back(*reply);
  }

  /** The one response sent; fails the test if there was not exactly one. */
  const Response& response() const {
    EXPECT_EQ(sent.size(), 1u);
    static const Response kNone = Response::json("<nothing sent>", -1);
    return sent.empty() ? kNone : sent.front();
  }
  std::optional<std::string> responseHeader(std::string_view name) const {
    for (const auto& [k, v] : response().headers)
      if (iequals(k, name)) return v;
    return std::nullopt;
  }

  std::vector<Response> sent;
  std::vector<std::pair<std::string, std::string>> added;
  FakeSse sse;
  bool streamed = false;
  int body_reads = 0;

 private:
  std::string method_;
  std::string target_;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::string body_;
  std::optional<std::int64_t> length_;
  std::size_t read_offset_ = 0;
};

RouteSpec route(std::string method, std::string path, std::string id, std::string group,
                Response (*fn)(const Request&)) {
  RouteSpec s;
  s.method = std::move(method);
  s.path = std::move(path);
  s.endpoint = std::move(id);
  s.group = std::move(group);
  s.handler = fn;
  return s;
}

Response okHandler(const Request&) { return Response::json("{\"ok\":true}"); }

/** Echoes what the pipeline handed to the handler. */
Response echoHandler(const Request& r) {
  std::string out = "{\"method\":" + abx::sdk::jsonQuote(r.method) +
                    ",\"path\":" + abx::sdk::jsonQuote(r.path) +
                    ",\"endpoint\":" + abx::sdk::jsonQuote(r.endpoint) +
                    ",\"identity\":" + abx::sdk::jsonQuote(r.identity.id) +
                    ",\"json\":" + r.json.dump() + ",\"query\":{";
  bool first = true;
  for (const auto& [k, v] : r.query) {
    out += (first ? "" : ",") + abx::sdk::jsonQuote(k) + ":" + abx::sdk::jsonQuote(v);
    first = false;
  }
  out += "},\"arrays\":{";
  first = true;
  for (const auto& [k, list] : r.query_arrays) {
    out += (first ? "" : ",") + abx::sdk::jsonQuote(k) + ":[";
    for (std::size_t i = 0; i < list.size(); ++i)
      out += (i ? "," : "") + abx::sdk::jsonQuote(list[i]);
    out += "]";
    first = false;
  }
  out += "},\"params\":{";
  first = true;
  for (const auto& [k, v] : r.path_params) {
    out += (first ? "" : ",") + abx::sdk::jsonQuote(k) + ":" + abx::sdk::jsonQuote(v);
    first = false;
  }
  out += "}}";
  return Response::json(out);
}

std::vector<GroupRecord> testGroups() {
  return {{{"core", false, ""}, "core"},
          {{"echo", false, ""}, "test.echo"},
          {{"browser", true, ""}, "test.browser"},
          {{"agents", false, ""}, "test.agents"}};
}

std::unique_ptr<Dispatch> makeDispatch(const std::vector<std::string>& enabled_groups = {}) {
  auto d = std::make_unique<Dispatch>();
  auto& t = *d->routes;
  auto add = [&](RouteSpec s) {
    auto id = s.endpoint;
    auto status = t.add(std::move(s), "test");
    EXPECT_TRUE(status.isOk()) << id << ": " << status.message();
  };
  auto health = route("GET", "/health", "health", "core", okHandler);
  health.auth_required = false;
  add(std::move(health));
  add(route("GET", "/capabilities", "capabilities", "core", okHandler));
  add(route("GET", "/echo", "echo_get", "echo", echoHandler));
  auto post = route("POST", "/echo", "echo_post", "echo", echoHandler);
  post.max_request_bytes = 64;
  add(std::move(post));
  add(route("PUT", "/echo", "echo_put", "echo", echoHandler));
  add(route("DELETE", "/echo", "echo_delete", "echo", echoHandler));
  add(route("POST", "/echo/big", "echo_big", "echo", echoHandler));  // host default limit
  add(route("GET", "/items/{id}", "items_get", "echo", echoHandler));
  add(route("GET", "/boom", "boom", "echo",
            [](const Request&) -> Response { throw std::runtime_error("kaboom"); }));
  add(route("GET", "/boom2", "boom2", "echo", [](const Request&) -> Response { throw 42; }));
  auto browse = route("GET", "/browser/go", "browser_go", "browser", okHandler);
  browse.scopes = {"browser:use"};
  add(std::move(browse));
  auto v1post = route("POST", "/v1/responses", "responses_create", "agents", echoHandler);
  v1post.max_request_bytes = 16;
  add(std::move(v1post));
  add(route("GET", "/v1/models", "models_list", "agents", okHandler));

  RouteSpec stream;
  stream.method = "GET";
  stream.path = "/stream";
  stream.endpoint = "stream";
  stream.group = "echo";
  stream.streaming = true;
  stream.stream_handler = [](const Request& r, SseStream& sse) -> std::optional<Response> {
    if (r.queryParam("mode") == "reject") return Response::error(400, "bad mode", "ValueError");
    if (r.queryParam("mode") == "throw") throw std::runtime_error("stream exploded");
    sse.event("start", "{\"n\":1}");
    sse.event("done", r.identity.id);
    return std::nullopt;
  };
  add(std::move(stream));

  d->admission = std::make_unique<DefaultAdmission>(t, testGroups(), enabled_groups);
  return d;
}

class PipelineTest : public ::testing::Test {
 protected:
  explicit PipelineTest(std::optional<std::string> token = std::string(kToken),
                        AuditMode mode = AuditMode::deny,
                        std::vector<std::string> enabled_groups = {})
      : sink_(std::tmpfile()),
        token_(std::move(token)),
        mode_(mode),
        dispatch_(makeDispatch(enabled_groups)),
        pipeline_(1024) {
    equip(*dispatch_);
    pipeline_.publish(dispatch_);
  }
  /** The fixture's authenticator and audit log, for @p d. */
  void equip(Dispatch& d) {
    d.auth = std::make_unique<Authenticator>(token_);
    d.audit = std::make_unique<AuditLog>(mode_, sink_);
  }
  ~PipelineTest() override {
    if (sink_) std::fclose(sink_);
  }

  FakeExchange run(FakeExchange ex) {
    pipeline_.handle(ex);
    return ex;
  }

  /** Everything the audit log has written so far. */
  std::string auditText() {
    std::fflush(sink_);
    std::rewind(sink_);
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, sink_)) > 0) out.append(buf, n);
    std::fseek(sink_, 0, SEEK_END);
    return out;
  }
  std::vector<std::string> auditLines() {
    std::vector<std::string> lines;
    auto text = auditText();
    std::size_t start = 0;
    while (start < text.size()) {
      auto end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return lines;
  }

  std::FILE* sink_;
  std::optional<std::string> token_;
  AuditMode mode_;
  std::shared_ptr<Dispatch> dispatch_;
  Pipeline pipeline_;
};

// ---------------------------------------------------------------- step 0/1

TEST_F(PipelineTest, UnsupportedMethodIs501) {
  auto ex = run(FakeExchange("OPTIONS", "/health"));
  EXPECT_EQ(ex.response().status, 501);
  EXPECT_EQ(ex.response().body,
            "{\"error\":\"Unsupported method ('OPTIONS')\",\"type\":\"NotImplementedError\"}");
  auto head = run(FakeExchange("HEAD", "/nope"));
  EXPECT_EQ(head.response().status, 501);
}

TEST(PipelineNormalise, NormalisePath) {
  EXPECT_EQ(Pipeline::normalisePath(""), "/");
  EXPECT_EQ(Pipeline::normalisePath("/"), "/");
  EXPECT_EQ(Pipeline::normalisePath("///"), "/");
  EXPECT_EQ(Pipeline::normalisePath("/health/"), "/health");
  EXPECT_EQ(Pipeline::normalisePath("//health"), "/health");
  EXPECT_EQ(Pipeline::normalisePath("/a//b///c//"), "/a/b/c");
  EXPECT_EQ(Pipeline::normalisePath("/a/b/?x=1/"), "/a/b");
  EXPECT_EQ(Pipeline::normalisePath("/a#frag/"), "/a");
  EXPECT_EQ(Pipeline::normalisePath("/?q"), "/");
  EXPECT_EQ(Pipeline::normalisePath("a/b"), "/a/b");
}

// ---------------------------------------------------------------- step 2

TEST_F(PipelineTest, UnknownRouteIs404) {
  auto ex = run(FakeExchange("GET", "/x").token());
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_EQ(ex.response().body, R"({"error":"Not found: /x","type":"ValueError"})");
}

TEST_F(PipelineTest, NotFoundReportsTheNormalisedPath) {
  auto ex = run(FakeExchange("GET", "//x//y/?a=1").token());
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_EQ(ex.response().body, R"({"error":"Not found: /x/y","type":"ValueError"})");
}

TEST_F(PipelineTest, KnownPathWithOtherMethodIs404) {
  auto ex = run(FakeExchange("POST", "/health").body("{}"));
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_EQ(ex.response().body, R"({"error":"Not found: /health","type":"ValueError"})");
}

TEST_F(PipelineTest, TrailingAndDoubleSlashesAreNormalised) {
  for (const char* target : {"/health", "/health/", "//health", "/health//", "/health?x=1"}) {
    SCOPED_TRACE(target);
    auto ex = run(FakeExchange("GET", target));
    EXPECT_EQ(ex.response().status, 200);
    EXPECT_EQ(ex.response().body, R"({"ok":true})");
  }
  auto items = run(FakeExchange("GET", "/items//a%20b/").token());
  ASSERT_EQ(items.response().status, 200);
  EXPECT_THAT(items.response().body, HasSubstr(R"("path":"/items/a%20b")"));
  EXPECT_THAT(items.response().body, HasSubstr(R"("params":{"id":"a b"})"));
}

// ---------------------------------------------------------------- step 3

TEST_F(PipelineTest, MissingTokenIs401) {
  auto ex = run(FakeExchange("GET", "/capabilities"));
  EXPECT_EQ(ex.response().status, 401);
  EXPECT_EQ(ex.response().body, R"({"error":"unauthorized","type":"AuthError"})");
}

TEST_F(PipelineTest, WrongTokenIs401) {
  auto ex = run(FakeExchange("GET", "/capabilities").token("s3cret-tokem"));
  EXPECT_EQ(ex.response().status, 401);
  EXPECT_EQ(ex.response().body, R"({"error":"unauthorized","type":"AuthError"})");
  auto prefix = run(FakeExchange("GET", "/capabilities").token("s3cret"));
  EXPECT_EQ(prefix.response().status, 401);
  auto longer = run(FakeExchange("GET", "/capabilities").token(std::string(kToken) + "x"));
  EXPECT_EQ(longer.response().status, 401);
}

TEST_F(PipelineTest, WrongBearerIs401) {
  auto ex = run(FakeExchange("GET", "/capabilities").header("Authorization", "Bearer nope"));
  EXPECT_EQ(ex.response().status, 401);
  EXPECT_EQ(ex.response().body, R"({"error":"unauthorized","type":"AuthError"})");
  auto basic = run(
      FakeExchange("GET", "/capabilities").header("Authorization", std::string("Basic ") + kToken));
  EXPECT_EQ(basic.response().status, 401);
}

TEST_F(PipelineTest, BearerTokenIsAccepted) {
  auto ex =
      run(FakeExchange("GET", "/echo").header("Authorization", std::string("Bearer ") + kToken));
  EXPECT_EQ(ex.response().status, 200);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("identity":"legacy")"));
  auto lower =
      run(FakeExchange("GET", "/echo").header("authorization", std::string("bearer  ") + kToken));
  EXPECT_EQ(lower.response().status, 200);
}

TEST_F(PipelineTest, AccessTokenIsAcceptedAndIdentityIsLegacy) {
  auto ex = run(FakeExchange("GET", "/echo").token());
  ASSERT_EQ(ex.response().status, 200);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("identity":"legacy")"));
}

TEST_F(PipelineTest, TwoDifferentAccessTokensAre400Ambiguous) {
  auto ex = run(FakeExchange("GET", "/echo").token().token("other"));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_EQ(ex.response().body,
            R"({"error":"ambiguous credentials: two different X-Access-Token values",)"
            R"("type":"AuthError","code":"ambiguous_credentials"})");
  // Even when the odd one out comes first.
  auto reversed = run(FakeExchange("GET", "/echo").token("other").token());
  EXPECT_EQ(reversed.response().status, 400);
}

TEST_F(PipelineTest, SameAccessTokenTwiceIsFine) {
  auto ex = run(FakeExchange("GET", "/echo").token().token());
  EXPECT_EQ(ex.response().status, 200);
}

TEST_F(PipelineTest, AccessTokenDecidesOverAuthorization) {
  // The OpenAI SDK always sends a Bearer with its own apiKey.
  auto good_x = run(FakeExchange("GET", "/echo").token().header("Authorization", "Bearer sk-x"));
  EXPECT_EQ(good_x.response().status, 200);
  auto bad_x = run(FakeExchange("GET", "/echo")
                       .token("wrong")
                       .header("Authorization", std::string("Bearer ") + kToken));
  EXPECT_EQ(bad_x.response().status, 401);
  EXPECT_EQ(bad_x.response().body, R"({"error":"unauthorized","type":"AuthError"})");
}

TEST_F(PipelineTest, HealthIsAuthExempt) {
  auto none = run(FakeExchange("GET", "/health"));
  EXPECT_EQ(none.response().status, 200);
  auto wrong = run(FakeExchange("GET", "/health").token("wrong").token("ambiguous"));
  EXPECT_EQ(wrong.response().status, 200);
  // /capabilities is not.
  auto caps = run(FakeExchange("GET", "/capabilities"));
  EXPECT_EQ(caps.response().status, 401);
}

class OpenPipelineTest : public PipelineTest {
 protected:
  OpenPipelineTest() : PipelineTest(std::nullopt) {}
};

TEST_F(OpenPipelineTest, NoTokenConfiguredMeansAnonymousAccess) {
  auto ex = run(FakeExchange("GET", "/echo"));
  ASSERT_EQ(ex.response().status, 200);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("identity":"anonymous")"));
  auto garbage = run(FakeExchange("GET", "/echo").token("a").token("b"));
  EXPECT_EQ(garbage.response().status, 200);
}

// ---------------------------------------------------------------- step 4

TEST_F(PipelineTest, OptInGroupIs404EndpointDisabledWithRule) {
  auto ex = run(FakeExchange("GET", "/browser/go").token());
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_EQ(ex.response().body,
            R"({"error":"Endpoint 'browser_go' is disabled","type":"PolicyError",)"
            R"("code":"endpoint_disabled","endpoint":"browser_go",)"
            R"("rule":"default:opt-in:browser"})");
}

class EnabledBrowserTest : public PipelineTest {
 protected:
  EnabledBrowserTest() : PipelineTest(std::string(kToken), AuditMode::all, {"browser"}) {}
};

TEST_F(EnabledBrowserTest, EnabledGroupIsAdmittedWithEnvRule) {
  auto ex = run(FakeExchange("GET", "/browser/go").token());
  EXPECT_EQ(ex.response().status, 200);
  const auto* r = dispatch_->routes->findEndpoint("browser_go");
  ASSERT_NE(r, nullptr);
  auto state = dispatch_->admission->state(*r);
  EXPECT_TRUE(state.enabled);
  EXPECT_EQ(state.rule, "env:ABX_SERVER_ENABLED_GROUPS");
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("decision":"allow")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("rule":"env:ABX_SERVER_ENABLED_GROUPS")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("endpoint":"browser_go")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("identity":"legacy")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("status":200)"));
}

TEST(DefaultAdmission, StatesPerGroup) {
  auto d = makeDispatch();
  auto state = [&](const char* id) {
    const auto* r = d->routes->findEndpoint(id);
    EXPECT_NE(r, nullptr) << id;
    return r ? d->admission->state(*r) : abx::kernel::EndpointState{};
  };
  EXPECT_TRUE(state("echo_get").enabled);
  EXPECT_EQ(state("echo_get").rule, "default:echo");
  EXPECT_TRUE(state("health").enabled);
  EXPECT_EQ(state("health").rule, "default:core");
  EXPECT_FALSE(state("browser_go").enabled);
  EXPECT_EQ(state("browser_go").rule, "default:opt-in:browser");
  // The environment layer is a group selector that comes later than the
  // default layer, so it is the rule that decides even for a group already on.
  auto e = makeDispatch({"echo"});
  auto echo = e->admission->state(*e->routes->findEndpoint("echo_get"));
  EXPECT_TRUE(echo.enabled);
  EXPECT_EQ(echo.rule, "env:ABX_SERVER_ENABLED_GROUPS");
}

TEST(DefaultAdmission, CoreCannotBeOptIn) {
  RouteTable table;
  auto s = route("GET", "/health", "health", "core", okHandler);
  ASSERT_TRUE(table.add(std::move(s), "core").isOk());
  DefaultAdmission admission(table, {{{"core", true, ""}, "core"}}, {});
  auto state = admission.state(*table.findEndpoint("health"));
  EXPECT_TRUE(state.enabled);
  EXPECT_EQ(state.rule, "default:core");
}

TEST(DefaultAdmission, ParseEnabledGroups) {
  auto groups = testGroups();
  auto ok = DefaultAdmission::parseEnabledGroups(" browser , echo ,,", groups);
  ASSERT_TRUE(ok.isOk()) << ok.status().message();
  EXPECT_EQ(*ok, (std::vector<std::string>{"browser", "echo"}));
  auto empty = DefaultAdmission::parseEnabledGroups("", groups);
  ASSERT_TRUE(empty.isOk());
  EXPECT_TRUE(empty->empty());

  auto bad = DefaultAdmission::parseEnabledGroups("echo,browsr", groups);
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().type(), "ValueError");
  EXPECT_THAT(bad.status().message(), HasSubstr("unknown group 'browsr'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("did you mean 'browser'?"));
  EXPECT_THAT(bad.status().message(), HasSubstr("installed groups: core, echo, browser, agents"));

  auto far = DefaultAdmission::parseEnabledGroups("zzzzzzzzzz", groups);
  ASSERT_FALSE(far.isOk());
  EXPECT_THAT(far.status().message(), ::testing::Not(HasSubstr("did you mean")));
}

TEST(CheckScopes, MissingScopeIs403WithEndpointAndScope) {
  RouteTable table;
  auto s = route("POST", "/files/move", "files_move", "file_ops", okHandler);
  s.scopes = {"files:write", "files:delete"};
  ASSERT_TRUE(table.add(std::move(s), "abx.files").isOk());
  const auto& r = *table.findEndpoint("files_move");

  abx::sdk::Identity ci;
  ci.id = "ci";
  ci.scopes = {"files:read", "files:write"};
  auto denied = checkScopes(r, ci);
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 403);
  EXPECT_EQ(denied->code, "missing_scope");
  auto rendered = renderError("/files/move", *denied);
  EXPECT_EQ(rendered.status, 403);
  EXPECT_EQ(rendered.body,
            R"({"error":"Missing scope 'files:delete' for endpoint 'files_move'",)"
            R"("type":"PermissionError","code":"missing_scope","endpoint":"files_move",)"
            R"("scope":"files:delete"})");
  auto v1 = renderError("/v1/files/move", *denied);
  EXPECT_EQ(v1.body,
            R"({"error":{"message":"Missing scope 'files:delete' for endpoint 'files_move'",)"
            R"("type":"permission_error","param":null,"code":"missing_scope",)"
            R"("endpoint":"files_move","scope":"files:delete"}})");

  abx::sdk::Identity admin;
  admin.id = "admin";
  admin.scopes = {"files:*"};
  EXPECT_FALSE(checkScopes(r, admin));
  abx::sdk::Identity star;
  star.scopes = {"*"};
  EXPECT_FALSE(checkScopes(r, star));
  abx::sdk::Identity none;
  none.scopes = {};
  auto first = checkScopes(r, none);
  ASSERT_TRUE(first);
  EXPECT_THAT(first->message, HasSubstr("'files:write'"));  // the first missing one

  // DefaultAdmission::admit goes through the same check.
  DefaultAdmission admission(table, {{{"file_ops", false, ""}, "abx.files"}}, {});
  auto via = admission.admit(r, ci);
  ASSERT_TRUE(via.error);
  EXPECT_EQ(via.error->status, 403);
  EXPECT_FALSE(admission.admit(r, admin).error);
}

// ---------------------------------------------------------------- step 5

TEST_F(PipelineTest, DuplicateQueryParameterIs400) {
  auto ex = run(FakeExchange("GET", "/echo?a=1&b=2&a=3").token());
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_EQ(ex.response().body, R"({"error":"Duplicate query parameter: a","type":"ValueError",)"
                                R"("code":"duplicate_parameter","param":"a"})");
  // Same name after decoding is still a duplicate.
  auto decoded = run(FakeExchange("GET", "/echo?a=1&%61=2").token());
  EXPECT_EQ(decoded.response().status, 400);
}

TEST_F(PipelineTest, BracketArraysAreAllowedAndLandInQueryArrays) {
  auto ex = run(FakeExchange("GET", "/echo?a[]=1&a[]=2&b=x+y&c=%41&flag&&").token());
  ASSERT_EQ(ex.response().status, 200) << ex.response().body;
  EXPECT_THAT(ex.response().body, HasSubstr(R"("query":{"b":"x y","c":"A","flag":""})"));
  EXPECT_THAT(ex.response().body, HasSubstr(R"("arrays":{"a":["1","2"]})"));
}

TEST(PipelineQuery, ParseQueryDirectly) {
  abx::sdk::ParamMap query;
  decltype(Request::query_arrays) arrays;
  EXPECT_FALSE(Pipeline::parseQuery("x=1&ids[]=a&ids[]=b%20c&[]=z", query, arrays));
  EXPECT_EQ(query.at("x"), "1");
  EXPECT_EQ(query.at("[]"), "z");  // a bare "[]" is an ordinary name
  EXPECT_EQ(arrays.at("ids"), (std::vector<std::string>{"a", "b c"}));

  abx::sdk::ParamMap q2;
  decltype(Request::query_arrays) a2;
  auto bad = Pipeline::parseQuery("x=%zz", q2, a2);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(bad->code, "invalid_query");
}

TEST_F(PipelineTest, TransferEncodingIs400AndClosesTheConnection) {
  auto ex = run(FakeExchange("POST", "/echo").token().header("Transfer-Encoding", "chunked"));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_EQ(ex.response().body,
            R"({"error":"Transfer-Encoding is not supported on requests; send Content-Length",)"
            R"("type":"ValueError","code":"transfer_encoding_unsupported"})");
  EXPECT_EQ(ex.responseHeader("Connection"), "close");
  EXPECT_EQ(ex.body_reads, 0);
}

// ---------------------------------------------------------------- step 6

TEST_F(PipelineTest, OversizeBodyIs413WithRouteLimit) {
  auto ex = run(FakeExchange("POST", "/echo")
                    .token()
                    .body("{\"k\":\"" + std::string(57, 'x') + "\"}"));  // 65 bytes, limit 64
  EXPECT_EQ(ex.response().status, 413);
  EXPECT_EQ(ex.response().body,
            R"({"error":"Request body too large: 65 bytes; the limit is 64","type":"ValueError",)"
            R"("code":"request_too_large","endpoint":"echo_post","limit":"max_request_bytes"})");
  // The pipeline does not force a close: the HTTP exchange drains a moderate
  // body (so the client reads the 413) and closes only for a huge one.
  EXPECT_FALSE(ex.responseHeader("Connection").has_value());
  EXPECT_EQ(ex.body_reads, 0);  // refused on Content-Length, before reading
}

TEST_F(PipelineTest, BodyExactlyAtLimitIsAccepted) {
  auto body = "{\"k\":\"" + std::string(56, 'x') + "\"}";
  ASSERT_EQ(body.size(), 64u);
  auto ex = run(FakeExchange("POST", "/echo").token().body(body));
  EXPECT_EQ(ex.response().status, 200) << ex.response().body;
}

TEST_F(PipelineTest, RouteWithoutLimitUsesHostDefault) {
  auto ex = run(FakeExchange("POST", "/echo/big").token().contentLength(1025));
  EXPECT_EQ(ex.response().status, 413);
  EXPECT_THAT(ex.response().body, HasSubstr("the limit is 1024"));
  EXPECT_THAT(ex.response().body, HasSubstr(R"("limit":"max_request_bytes")"));
}

TEST_F(PipelineTest, InvalidJsonIs400) {
  auto ex = run(FakeExchange("POST", "/echo").token().body("{\"a\":"));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_THAT(ex.response().body, StartsWith(R"({"error":"Invalid JSON: )"));
  EXPECT_THAT(ex.response().body,
              ::testing::EndsWith(R"(","type":"ValueError","code":"invalid_json"})"));
}

TEST_F(PipelineTest, NonObjectJsonIs400) {
  for (const char* body : {"[1,2]", "\"text\"", "42", "null"}) {
    SCOPED_TRACE(body);
    auto ex = run(FakeExchange("POST", "/echo").token().body(body));
    EXPECT_EQ(ex.response().status, 400);
    EXPECT_EQ(ex.response().body,
              R"({"error":"Invalid JSON: the request body must be a JSON object",)"
              R"("type":"ValueError","code":"invalid_json"})");
  }
}

TEST_F(PipelineTest, MalformedAndShortContentLength) {
  auto bad = run(FakeExchange("POST", "/echo").token().contentLength(-1));
  EXPECT_EQ(bad.response().status, 400);
  EXPECT_THAT(bad.response().body, HasSubstr(R"("code":"invalid_content_length")"));
  auto shorter = run(FakeExchange("POST", "/echo").token().body("{}").contentLength(10));
  EXPECT_EQ(shorter.response().status, 400);
  EXPECT_THAT(shorter.response().body, HasSubstr(R"("code":"incomplete_body")"));
  EXPECT_EQ(shorter.responseHeader("Connection"), "close");
}

TEST_F(PipelineTest, JsonBodyReachesHandlerAndEmptyBodyIsEmptyObject) {
  auto ex = run(FakeExchange("POST", "/echo?q=1").token().body(R"({"b":1,"a":[true,null]})"));
  ASSERT_EQ(ex.response().status, 200) << ex.response().body;
  EXPECT_THAT(ex.response().body, HasSubstr(R"("json":{"b":1,"a":[true,null]})"));
  EXPECT_THAT(ex.response().body, HasSubstr(R"("method":"POST")"));
  EXPECT_THAT(ex.response().body, HasSubstr(R"("endpoint":"echo_post")"));
  auto empty = run(FakeExchange("DELETE", "/echo").token());
  ASSERT_EQ(empty.response().status, 200);
  EXPECT_THAT(empty.response().body, HasSubstr(R"("json":{})"));
  auto put = run(FakeExchange("PUT", "/echo").token().body(R"({"x":"y"})"));
  ASSERT_EQ(put.response().status, 200);
  EXPECT_THAT(put.response().body, HasSubstr(R"("json":{"x":"y"})"));
}

TEST_F(PipelineTest, GetBodyIsNotRead) {
  auto ex = run(FakeExchange("GET", "/echo").token().body("not json at all"));
  EXPECT_EQ(ex.response().status, 200);
  EXPECT_EQ(ex.body_reads, 0);
}

// ---------------------------------------------------------------- step 7

TEST_F(PipelineTest, HandlerExceptionIs500) {
  auto ex = run(FakeExchange("GET", "/boom").token());
  EXPECT_EQ(ex.response().status, 500);
  EXPECT_EQ(ex.response().body,
            R"({"error":"Internal error in boom: kaboom","type":"InternalError"})");
  auto other = run(FakeExchange("GET", "/boom2").token());
  EXPECT_EQ(other.response().status, 500);
  EXPECT_EQ(other.response().body,
            R"({"error":"Internal error in boom2: unknown exception","type":"InternalError"})");
}

// A reload frees the dispatch it replaces, but only once the last call
// holding it has ended (and been audited by it).
TEST_F(PipelineTest, AReplacedDispatchLivesUntilItsLastCallEnds) {
  std::weak_ptr<const Dispatch> replaced;
  bool alive_in_call = false;
  RouteSpec s = route("GET", "/reload", "reload", "echo", nullptr);
  s.handler = [&](const Request&) {
    pipeline_.publish(dispatch_);  // a reload while this call runs
    alive_in_call = !replaced.expired();
    return Response::json("{}");
  };
  auto d = std::make_shared<Dispatch>();
  ASSERT_TRUE(d->routes->add(std::move(s), "test").isOk());
  d->admission =
      std::make_unique<DefaultAdmission>(*d->routes, testGroups(), std::vector<std::string>{});
  equip(*d);
  replaced = d;
  pipeline_.publish(std::move(d));
  EXPECT_FALSE(replaced.expired());
  auto ex = run(FakeExchange("GET", "/reload").token());
  EXPECT_EQ(ex.response().status, 200);
  EXPECT_TRUE(alive_in_call);
  EXPECT_TRUE(replaced.expired());
  EXPECT_EQ(pipeline_.current(), dispatch_);
}

// A max_concurrency slot may leave the call (a detached stream, a plugin's
// WebSocket): it keeps its counter, not the admission a reload frees.
TEST(AdmissionLease, OutlivesTheAdmissionItCameFrom) {
  RouteTable table;
  ASSERT_TRUE(table.add(route("GET", "/one", "one", "echo", okHandler), "test").isOk());
  const auto& r = *table.findEndpoint("one");
  auto compiled = std::make_shared<abx::kernel::CompiledPolicy>();
  compiled->endpoints.resize(1);
  compiled->endpoints[0].limits.max_concurrency = 1;
  auto admission = std::make_unique<abx::kernel::PolicyAdmission>(table, compiled);
  abx::sdk::Identity caller;
  auto held = admission->admit(r, caller);
  EXPECT_FALSE(held.error);
  auto refused = admission->admit(r, caller);
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->code, "concurrency_limited");
  held.lease = abx::kernel::AdmissionLease();  // the slot is free again
  auto again = admission->admit(r, caller);
  EXPECT_FALSE(again.error);
  admission.reset();                            // a reload freed it while the slot is out
  again.lease = abx::kernel::AdmissionLease();  // sanitized builds: no use after free
}

TEST_F(PipelineTest, HandlerSeesHeadersLowerCasedAndPathParams) {
  Request seen;
  RouteSpec s = route("GET", "/capture/{name}", "capture", "echo", nullptr);
  s.handler = [&seen](const Request& r) {
    seen = r;
    return Response::json("{}", 201);
  };
  auto d = std::make_unique<Dispatch>();
  ASSERT_TRUE(d->routes->add(std::move(s), "test").isOk());
  d->admission =
      std::make_unique<DefaultAdmission>(*d->routes, testGroups(), std::vector<std::string>{});
  equip(*d);
  pipeline_.publish(std::move(d));
  auto ex = run(FakeExchange("GET", "/capture/x%2Fy?z=1").token().header("X-Custom", "V"));
  pipeline_.publish(dispatch_);
  EXPECT_EQ(ex.response().status, 201);
  EXPECT_EQ(seen.endpoint, "capture");
  EXPECT_EQ(seen.path, "/capture/x%2Fy");
  EXPECT_EQ(seen.param("name"), "x/y");
  EXPECT_EQ(seen.queryParam("z"), "1");
  EXPECT_EQ(seen.header("x-custom"), "V");
  EXPECT_EQ(seen.header("x-access-token"), kToken);
  EXPECT_EQ(seen.identity.id, "legacy");
}

TEST_F(PipelineTest, StreamingRouteWritesEvents) {
  auto ex = run(FakeExchange("GET", "/stream").token());
  EXPECT_TRUE(ex.streamed);
  EXPECT_TRUE(ex.sent.empty());
  ASSERT_EQ(ex.sse.events.size(), 2u);
  EXPECT_EQ(ex.sse.events[0], (std::pair<std::string, std::string>{"start", "{\"n\":1}"}));
  EXPECT_EQ(ex.sse.events[1], (std::pair<std::string, std::string>{"done", "legacy"}));
}

TEST_F(PipelineTest, StreamingRouteMayAnswerPlainly) {
  auto ex = run(FakeExchange("GET", "/stream?mode=reject").token());
  EXPECT_TRUE(ex.sse.events.empty());
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_EQ(ex.response().body, R"({"error":"bad mode","type":"ValueError"})");
}

TEST_F(PipelineTest, StreamingHandlerExceptionIs500) {
  auto ex = run(FakeExchange("GET", "/stream?mode=throw").token());
  EXPECT_EQ(ex.response().status, 500);
  EXPECT_EQ(ex.response().body,
            R"({"error":"Internal error in stream: stream exploded","type":"InternalError"})");
}

TEST_F(PipelineTest, StreamingRouteStillGoesThroughAuth) {
  auto ex = run(FakeExchange("GET", "/stream"));
  EXPECT_FALSE(ex.streamed);
  EXPECT_EQ(ex.response().status, 401);
}

// ---------------------------------------------------------------- /v1

TEST_F(PipelineTest, OpenAiEnvelopeUnderV1) {
  auto missing = run(FakeExchange("GET", "/v1/nope").token());
  EXPECT_EQ(missing.response().status, 404);
  EXPECT_EQ(missing.response().body,
            R"({"error":{"message":"Not found: /v1/nope","type":"invalid_request_error",)"
            R"("param":null,"code":null}})");

  auto unauth = run(FakeExchange("GET", "/v1/models").header("Authorization", "Bearer sk-x"));
  EXPECT_EQ(unauth.response().status, 401);
  EXPECT_EQ(unauth.response().body,
            R"({"error":{"message":"unauthorized","type":"authentication_error",)"
            R"("param":null,"code":null}})");

  auto big = run(FakeExchange("POST", "/v1/responses").token().body(R"({"input":"hello world"})"));
  EXPECT_EQ(big.response().status, 413);
  EXPECT_EQ(big.response().body,
            R"({"error":{"message":"Request body too large: 23 bytes; the limit is 16",)"
            R"("type":"invalid_request_error","param":null,"code":"request_too_large",)"
            R"("endpoint":"responses_create","limit":"max_request_bytes"}})");

  auto bad = run(FakeExchange("POST", "/v1/responses").token().body("[1]"));
  EXPECT_EQ(bad.response().status, 400);
  EXPECT_EQ(bad.response().body,
            R"({"error":{"message":"Invalid JSON: the request body must be a JSON object",)"
            R"("type":"invalid_request_error","param":null,"code":"invalid_json"}})");

  auto ok = run(FakeExchange("GET", "/v1/models").token());
  EXPECT_EQ(ok.response().status, 200);
}

TEST(RenderError, OpenAiTypesByStatus) {
  ApiError e;
  e.message = "m";
  auto typeFor = [&](int status) {
    e.status = status;
    return renderError("/v1/x", e).body;
  };
  EXPECT_THAT(typeFor(429), HasSubstr(R"("type":"rate_limit_error")"));
  EXPECT_THAT(typeFor(500), HasSubstr(R"("type":"server_error")"));
  EXPECT_THAT(typeFor(503), HasSubstr(R"("type":"server_error")"));
  EXPECT_THAT(typeFor(404), HasSubstr(R"("type":"invalid_request_error")"));
  // "/v1" itself is OpenAI-style; "/v10" is not.
  EXPECT_THAT(renderError("/v1", e).body, StartsWith(R"({"error":{)"));
  EXPECT_THAT(renderError("/v10/x", e).body, StartsWith(R"({"error":"m")"));

  ApiError limited;
  limited.status = 429;
  limited.message = "slow down";
  limited.code = "rate_limited";
  limited.retry_after = 7;
  auto r = renderError("/files", limited);
  EXPECT_EQ(r.body,
            R"({"error":"slow down","type":"ValueError","code":"rate_limited","retry_after":7})");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Retry-After", "7"}));
}

// ---------------------------------------------------------------- order

TEST_F(PipelineTest, OrderUnknownRouteBeatsBadToken) {
  auto ex = run(FakeExchange("GET", "/x").token("wrong"));
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_EQ(ex.response().body, R"({"error":"Not found: /x","type":"ValueError"})");
}

TEST_F(PipelineTest, OrderUnsupportedMethodBeatsEverything) {
  auto ex = run(FakeExchange("TRACE", "/x").token("wrong"));
  EXPECT_EQ(ex.response().status, 501);
}

TEST_F(PipelineTest, OrderBadTokenBeatsDisabledEndpoint) {
  auto ex = run(FakeExchange("GET", "/browser/go").token("wrong"));
  EXPECT_EQ(ex.response().status, 401);
  EXPECT_EQ(ex.response().body, R"({"error":"unauthorized","type":"AuthError"})");
}

TEST_F(PipelineTest, OrderDisabledEndpointBeatsDuplicateParameter) {
  auto ex = run(FakeExchange("GET", "/browser/go?a=1&a=2").token());
  EXPECT_EQ(ex.response().status, 404);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"endpoint_disabled")"));
}

TEST_F(PipelineTest, OrderDuplicateParameterBeatsOversizeBody) {
  auto ex = run(FakeExchange("POST", "/echo?a=1&a=2").token().body(std::string(100, ' ')));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"duplicate_parameter")"));
}

TEST_F(PipelineTest, OrderDuplicateParameterBeatsTransferEncoding) {
  auto ex =
      run(FakeExchange("POST", "/echo?a=1&a=2").token().header("Transfer-Encoding", "chunked"));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"duplicate_parameter")"));
}

TEST_F(PipelineTest, OrderTransferEncodingBeatsOversizeBody) {
  auto ex = run(FakeExchange("POST", "/echo")
                    .token()
                    .header("Transfer-Encoding", "chunked")
                    .body(std::string(100, ' ')));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"transfer_encoding_unsupported")"));
}

TEST_F(PipelineTest, OrderOversizeBodyBeatsInvalidJson) {
  auto ex = run(FakeExchange("POST", "/echo").token().body(std::string(100, '{')));
  EXPECT_EQ(ex.response().status, 413);
}

TEST_F(PipelineTest, OrderAmbiguousBeatsDisabled) {
  auto ex = run(FakeExchange("GET", "/browser/go").token().token("x"));
  EXPECT_EQ(ex.response().status, 400);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"ambiguous_credentials")"));
}

// ---------------------------------------------------------------- audit

TEST_F(PipelineTest, DeniedRequestWritesOneAuditLine) {
  auto ex = run(FakeExchange("GET", "/browser/go/").token());
  ASSERT_EQ(ex.response().status, 404);
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 1u);
  const auto& line = lines[0];
  EXPECT_THAT(line, StartsWith(R"({"time":")"));
  EXPECT_THAT(line, HasSubstr(R"("identity":"legacy")"));
  EXPECT_THAT(line, HasSubstr(R"("endpoint":"browser_go")"));
  EXPECT_THAT(line, HasSubstr(R"("method":"GET")"));
  EXPECT_THAT(line, HasSubstr(R"("path":"/browser/go")"));
  EXPECT_THAT(line, HasSubstr(R"("decision":"deny")"));
  EXPECT_THAT(line, HasSubstr(R"("rule":"default:opt-in:browser")"));
  EXPECT_THAT(line, HasSubstr(R"("code":"endpoint_disabled")"));
  EXPECT_THAT(line, HasSubstr(R"("status":404)"));
  EXPECT_THAT(line, HasSubstr(R"("duration_ms":)"));
  EXPECT_THAT(line, ::testing::EndsWith("}"));
}

TEST_F(PipelineTest, AuthFailureIsAuditedAsUnauthenticated) {
  run(FakeExchange("GET", "/capabilities").token("wrong"));
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("identity":"unauthenticated")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("rule":"auth")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("status":401)"));
  EXPECT_THAT(lines[0], HasSubstr(R"("decision":"deny")"));
}

TEST_F(PipelineTest, ParameterAndBodyRejectionsAreAudited) {
  run(FakeExchange("GET", "/echo?a=1&a=1").token());
  run(FakeExchange("POST", "/echo").token().contentLength(100000));
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr(R"("rule":"params")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("code":"duplicate_parameter")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("rule":"limits:max_request_bytes")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("status":413)"));
}

TEST_F(PipelineTest, AllowedRequestWritesNothingInDenyMode) {
  auto ex = run(FakeExchange("GET", "/echo").token());
  ASSERT_EQ(ex.response().status, 200);
  auto stream = run(FakeExchange("GET", "/stream").token());
  ASSERT_EQ(stream.sse.events.size(), 2u);
  auto boom = run(FakeExchange("GET", "/boom").token());  // a 500 is not a denial
  ASSERT_EQ(boom.response().status, 500);
  EXPECT_EQ(auditText(), "");
}

class AuditAllTest : public PipelineTest {
 protected:
  AuditAllTest() : PipelineTest(std::string(kToken), AuditMode::all) {}
};

TEST_F(AuditAllTest, AllModeRecordsAllowedCallsIncludingStreams) {
  run(FakeExchange("GET", "/echo").token());
  run(FakeExchange("GET", "/stream").token());
  run(FakeExchange("GET", "/stream?mode=reject").token());
  run(FakeExchange("GET", "/capabilities"));
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[0], HasSubstr(R"("endpoint":"echo_get")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("decision":"allow")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("rule":"default:echo")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("status":200)"));
  EXPECT_THAT(lines[0], ::testing::Not(HasSubstr(R"("code")")));
  EXPECT_THAT(lines[1], HasSubstr(R"("endpoint":"stream")"));
  EXPECT_THAT(lines[1], HasSubstr(R"("status":200)"));
  EXPECT_THAT(lines[2], HasSubstr(R"("status":400)"));
  EXPECT_THAT(lines[3], HasSubstr(R"("decision":"deny")"));
}

TEST(AuditLogMode, OffWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  AuditLog log(AuditMode::off, f);
  EXPECT_FALSE(log.wants(true));
  EXPECT_FALSE(log.wants(false));
  abx::kernel::AuditEntry entry;
  entry.allowed = false;
  log.record(entry);
  EXPECT_EQ(std::ftell(f), 0);
  std::fclose(f);
}

TEST(AuditLogMode, FormatQuotesFields) {
  abx::kernel::AuditEntry entry;
  entry.identity = "a\"b";
  entry.endpoint = "e";
  entry.method = "GET";
  entry.path = "/p\n";
  entry.allowed = false;
  entry.rule = "r";
  entry.status = 403;
  entry.duration_ms = 1.5;
  auto line = AuditLog::format(entry);
  EXPECT_THAT(line, HasSubstr(R"("identity":"a\"b")"));
  EXPECT_THAT(line, HasSubstr(R"("path":"/p\n")"));
  EXPECT_THAT(line, HasSubstr(R"("duration_ms":1.500})"));
  EXPECT_THAT(line, ::testing::EndsWith("}\n"));
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
}

// ---------------------------------------------------------------- browsers

class BrowserPipelineTest : public PipelineTest {
 protected:
  BrowserPipelineTest() : PipelineTest(std::string(kToken), AuditMode::all) {
    origins_.setPorts(9000, 9001);
    pipeline_.setOriginPolicy(&origins_);
  }
  abx::kernel::OriginPolicy origins_{"127.0.0.1", {}, {"https://app.example"}};
};

TEST_F(BrowserPipelineTest, ForeignOriginIs403AndAudited) {
  auto ex = run(FakeExchange("GET", "/items/1").token().header("Origin", "https://evil.example"));
  EXPECT_EQ(ex.response().status, 403);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"origin_not_allowed")"));
  EXPECT_FALSE(ex.responseHeader("Access-Control-Allow-Origin"));
  auto lines = auditLines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], HasSubstr(R"("rule":"origin")"));
  EXPECT_THAT(lines[0], HasSubstr(R"("decision":"deny")"));
}

TEST_F(BrowserPipelineTest, ForeignHostIs421) {
  auto ex = run(FakeExchange("GET", "/items/1").token().header("Host", "rebound.example:9000"));
  EXPECT_EQ(ex.response().status, 421);
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"host_not_allowed")"));
  EXPECT_EQ(ex.responseHeader("Connection"), "close");
  // The address the connection arrived on names the server.
  auto local = run(FakeExchange("GET", "/items/1").token().header("Host", "10.1.2.3:9000"));
  EXPECT_EQ(local.response().status, 200);
}

TEST_F(BrowserPipelineTest, OpenAiPathsUseTheEnvelope) {
  auto ex = run(FakeExchange("GET", "/v1/models").token().header("Origin", "null"));
  EXPECT_EQ(ex.response().status, 403);
  EXPECT_THAT(ex.response().body, StartsWith(R"({"error":{"message":"Origin 'null')"));
  EXPECT_THAT(ex.response().body, HasSubstr(R"("code":"origin_not_allowed")"));
}

TEST_F(BrowserPipelineTest, AllowedOriginGetsCorsHeaders) {
  auto ex = run(FakeExchange("GET", "/items/1").token().header("Origin", "https://app.example"));
  EXPECT_EQ(ex.response().status, 200);
  EXPECT_EQ(ex.responseHeader("Access-Control-Allow-Origin"), "https://app.example");
  EXPECT_EQ(ex.responseHeader("Vary"), "Origin");
  // Refusals after the Origin stage carry them too, so the page can read why.
  auto denied = run(FakeExchange("GET", "/items/1").header("Origin", "https://app.example"));
  EXPECT_EQ(denied.response().status, 401);
  EXPECT_EQ(denied.responseHeader("Access-Control-Allow-Origin"), "https://app.example");
}

TEST_F(BrowserPipelineTest, SameOriginNeedsNoCorsHeaders) {
  auto ex = run(FakeExchange("GET", "/items/1").token().header("Origin", "http://localhost:9000"));
  EXPECT_EQ(ex.response().status, 200);
  EXPECT_FALSE(ex.responseHeader("Access-Control-Allow-Origin"));
}

TEST_F(BrowserPipelineTest, Preflight) {
  auto ok = run(FakeExchange("OPTIONS", "/v1/responses")
                    .header("Origin", "https://app.example")
                    .header("Access-Control-Request-Method", "POST")
                    .header("Access-Control-Request-Headers", "Content-Type, X-Access-Token"));
  EXPECT_EQ(ok.response().status, 204);
  EXPECT_EQ(ok.responseHeader("Access-Control-Allow-Origin"), "https://app.example");
  EXPECT_EQ(ok.responseHeader("Access-Control-Allow-Methods"), "POST");
  EXPECT_EQ(ok.responseHeader("Access-Control-Allow-Headers"), "content-type, x-access-token");
  auto evil = run(FakeExchange("OPTIONS", "/v1/responses")
                      .header("Origin", "https://evil.example")
                      .header("Access-Control-Request-Method", "POST"));
  EXPECT_EQ(evil.response().status, 403);
  auto nowhere = run(FakeExchange("OPTIONS", "/nope")
                         .header("Origin", "https://app.example")
                         .header("Access-Control-Request-Method", "GET"));
  EXPECT_EQ(nowhere.response().status, 404);
  auto plain = run(FakeExchange("OPTIONS", "/items/1"));
  EXPECT_EQ(plain.response().status, 501);
}

}  // namespace
