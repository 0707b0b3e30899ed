// In-process calls (HostContext::call, SDK 2.4): a LocalExchange run by
// Pipeline::handleAs is admitted for the given identity without the token,
// gets its parameters and body as the route reads them, streams events to
// the caller, is audited like HTTP, and bounds a streamed body.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "pipeline/local_exchange.h"
#include "pipeline/pipeline.h"

namespace abx::kernel {
namespace {

sdk::RouteSpec spec(const char* method, const char* path, const char* id) {
  sdk::RouteSpec s;
  s.method = method;
  s.path = path;
  s.endpoint = id;
  s.group = "echo";
  return s;
}

class LocalCallTest : public ::testing::Test {
 protected:
  LocalCallTest() : sink_(std::tmpfile()), dispatch_(std::make_shared<Dispatch>()) {
    auto& routes = *dispatch_->routes;
    auto echo = spec("POST", "/items/{id}", "items_put");
    echo.scopes = {"items:write"};
    echo.handler = [](const sdk::Request& r) {
      return sdk::Response::json(sdk::JsonWriter()
                                     .beginObject()
                                     .member("who", r.identity.id)
                                     .member("id", std::string(*r.param("id")))
                                     .member("q", std::string(r.queryParam("q").value_or("")))
                                     .member("n", *r.json.integer("n"))
                                     .endObject()
                                     .take());
    };
    EXPECT_TRUE(routes.add(std::move(echo), "test"));
    auto stream = spec("GET", "/stream", "stream");
    stream.streaming = true;
    stream.stream_handler = [](const sdk::Request&, sdk::SseStream& sse) {
      sse.event("a", "1");
      std::string frames;
      sdk::appendSseFrame(frames, "b", "two\nlines");
      sdk::appendSseFrame(frames, "", "3");
      sse.frames(frames);
      return std::optional<sdk::Response>();
    };
    EXPECT_TRUE(routes.add(std::move(stream), "test"));
    auto big = spec("GET", "/big", "big");
    big.handler = [](const sdk::Request&) {
      sdk::Response r;
      r.body_stream = [](sdk::BodyWriter& w) { return w.write(std::string(100, 'x')); };
      return r;
    };
    EXPECT_TRUE(routes.add(std::move(big), "test"));
    dispatch_->admission = std::make_unique<DefaultAdmission>(
        routes, std::vector<GroupRecord>{{{"echo", false, ""}, "test"}},
        std::vector<std::string>{});
    dispatch_->auth = std::make_unique<Authenticator>(std::string("tok"));
    dispatch_->audit = std::make_unique<AuditLog>(AuditMode::all, sink_);
    pipeline_.publish(dispatch_);
  }
  ~LocalCallTest() override { std::fclose(sink_); }

  sdk::Response run(const sdk::LocalCall& call) {
    const Route* route = dispatch_->routes->findEndpoint(call.endpoint);
    auto target = localTarget(*route, call);
    EXPECT_TRUE(target);
    LocalExchange ex(call, route->spec.method, *target);
    pipeline_.handleAs(ex, call.identity);
    return ex.take();
  }
  std::string audited() {
    std::fflush(sink_);
    std::rewind(sink_);
    std::string out(4096, '\0');
    out.resize(std::fread(out.data(), 1, out.size(), sink_));
    return out;
  }

  std::FILE* sink_;
  std::shared_ptr<Dispatch> dispatch_;
  Pipeline pipeline_;
};

TEST_F(LocalCallTest, AdmitsTheGivenIdentityWithoutAToken) {
  sdk::LocalCall call;
  call.endpoint = "items_put";
  call.identity.id = "alice";
  call.identity.scopes = {"items:write"};
  call.path_params["id"] = "a b/c";
  call.query = {{"q", "x&y"}};
  call.body = R"({"n":4})";
  auto answer = run(call);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, R"({"who":"alice","id":"a b/c","q":"x&y","n":4})");
  EXPECT_NE(audited().find(R"("identity":"alice","endpoint":"items_put")"), std::string::npos);
}

TEST_F(LocalCallTest, RefusesAMissingScopeAsHttpDoesAndAuditsIt) {
  sdk::LocalCall call;
  call.endpoint = "items_put";
  call.identity.id = "bob";
  call.identity.scopes = {"items:read"};
  call.path_params["id"] = "1";
  call.body = R"({"n":1})";
  auto answer = run(call);
  EXPECT_EQ(answer.status, 403);
  EXPECT_NE(answer.body.find("missing_scope"), std::string::npos);
  EXPECT_NE(audited().find(R"("identity":"bob","endpoint":"items_put")"), std::string::npos);
}

TEST_F(LocalCallTest, StreamsEventsAndFramesToTheCaller) {
  std::vector<std::string> seen;
  sdk::LocalCall call;
  call.endpoint = "stream";
  call.on_event = [&](std::string_view name, std::string_view data) {
    seen.push_back(std::string(name) + "=" + std::string(data));
    return true;
  };
  auto answer = run(call);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(seen, (std::vector<std::string>{"a=1", "b=two\nlines", "message=3"}));
}

TEST_F(LocalCallTest, BoundsAStreamedBodyAndNeedsEveryPathParameter) {
  sdk::LocalCall call;
  call.endpoint = "big";
  call.max_response_bytes = 10;
  EXPECT_EQ(run(call).status, 502);
  call.max_response_bytes = 1000;
  EXPECT_EQ(run(call).body, std::string(100, 'x'));
  sdk::LocalCall missing;
  missing.endpoint = "items_put";
  EXPECT_FALSE(localTarget(*dispatch_->routes->findEndpoint("items_put"), missing));
}

}  // namespace
}  // namespace abx::kernel
