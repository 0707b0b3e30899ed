// com.example.hello: a complete third-party plugin in one file. It declares
// a group, serves GET /example/hello/{name}, and registers a command.
#include "abx/sdk/sdk.h"

namespace {

using namespace abx::sdk;

class HelloPlugin final : public Plugin {
 public:
  Status start(HostContext& host) override {
    if (auto s = host.routes().declareGroup({"example", false, "out-of-tree example"}); !s)
      return s;
    std::string greeting = host.settings().get("greeting").value_or("Hello");
    RouteSpec route;
    route.method = "GET";
    route.path = "/example/hello/{name}";
    route.endpoint = "example_hello";
    route.group = "example";
    route.summary = "Greets {name}";
    route.handler = [greeting](const Request& request) {
      return Response::json("{\"greeting\":" +
                            jsonQuote(greeting + ", " + std::string(*request.param("name")) + "!") +
                            "}");
    };
    if (auto s = host.routes().add(std::move(route)); !s) return s;
    host.log().info("example routes registered");
    return Status::ok();
  }
};

std::unique_ptr<Plugin> make(HostContext&) { return std::make_unique<HelloPlugin>(); }

}  // namespace

ABX_DECLARE_PLUGIN(make, "com.example.hello", "1.0.0", ABX_KIND_CAPABILITY,
                   R"({"type":"object","properties":{"greeting":{"type":"string"}}})")
