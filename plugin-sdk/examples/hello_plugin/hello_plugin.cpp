// com.example.hello: a complete third-party plugin in one file. It declares
// a group with a policy parameter of its own (max_name_length), takes a
// setting (greeting: the manifest's `settings:`, or ABX_HELLO_GREETING),
// serves GET /example/hello/{name} and counts its greetings on GET /metrics.
#include "abx/sdk/sdk.h"

namespace {

using namespace abx::sdk;

/** The group's one policy parameter: operators set it in a policy file,
 *  `endpoints: {example_hello: {params: {max_name_length: 8}}}`. */
std::vector<ParamSpec> helloParams() {
  return {{"max_name_length", ParamType::integer, "longest name greeted (403 beyond it)",
           std::int64_t{64}, 1, 1024}};
}

class HelloPlugin final : public Plugin {
 public:
  Status start(HostContext& host) override {
    if (auto s =
            host.routes().declareGroup({"example", false, "out-of-tree example", helloParams()});
        !s)
      return s;
    std::string greeting = host.settings().get("greeting").value_or("Hello");
    // Registered once; the handler keeps the cell (no lock per increment).
    CounterCell* greeted =
        &host.metrics()
             .counter("abx_example_greetings_total", "Names greeted by com.example.hello.", {})
             .labels({});
    RouteSpec route;
    route.method = "GET";
    route.path = "/example/hello/{name}";
    route.endpoint = "example_hello";
    route.group = "example";
    route.summary = "Greets {name}";
    route.handler = [greeting, greeted](const Request& request) {
      std::string name(*request.param("name"));
      auto longest = request.policy->params.integer("max_name_length").value_or(64);
      if (static_cast<std::int64_t>(name.size()) > longest)
        return HttpError{403, "Name longer than " + std::to_string(longest), "PermissionError",
                         "name_too_long"}
            .toResponse();
      greeted->inc();
      JsonWriter body;
      body.beginObject().member("greeting", greeting + ", " + name + "!").endObject();
      return Response::json(body.take());
    };
    if (auto s = host.routes().add(std::move(route)); !s) return s;
    host.log().info("example routes registered");
    return Status::ok();
  }
};

std::unique_ptr<Plugin> make(HostContext&) { return std::make_unique<HelloPlugin>(); }

}  // namespace

// greeting: from the manifest, or ABX_HELLO_GREETING (the kernel maps
// ABX_<last id segment>_<KEY> onto every declared setting).
ABX_DECLARE_PLUGIN(make, "com.example.hello", "1.0.0", ABX_KIND_CAPABILITY,
                   R"({"type":"object","properties":{"greeting":{"type":"string",)"
                   R"("default":"Hello","description":"the word before the name"}}})")
