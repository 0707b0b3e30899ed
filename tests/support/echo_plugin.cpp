// abx_test_echo.so: a plugin the integration tests load to drive every
// pipeline step through real HTTP — a plain group "echo" (body, params,
// a throwing handler, an SSE stream, a scoped route, a compiled command)
// and an opt-in group "echo_optin".
#include <chrono>
#include <stdexcept>
#include <thread>

#include "abx/sdk/sdk.h"

namespace {

using namespace abx::sdk;

class EchoPlugin final : public Plugin {
 public:
  Status start(HostContext& host) override {
    auto& r = host.routes();
    if (auto s = r.declareGroup(
            {"echo", false, "test echo", {{"overwrite", abx::sdk::ParamType::boolean, "test"}}});
        !s)
      return s;
    if (auto s = r.declareGroup({"echo_optin", true, "opt-in test group"}); !s) return s;

    RouteSpec echo;
    echo.method = "POST";
    echo.path = "/echo";
    echo.endpoint = "echo_post";
    echo.group = "echo";
    echo.max_request_bytes = 1024;
    echo.handler = [](const Request& req) {
      std::string query = "{";
      bool first = true;
      for (const auto& [k, v] : req.query) {
        query += (first ? "" : ",") + jsonQuote(k) + ":" + jsonQuote(v);
        first = false;
      }
      query += "}";
      return Response::json("{\"body\":" + req.json.dump() + ",\"query\":" + query +
                            ",\"identity\":" + jsonQuote(req.identity.id) + "}");
    };
    if (auto s = r.add(std::move(echo)); !s) return s;

    RouteSpec item;
    item.method = "GET";
    item.path = "/echo/items/{id}";
    item.endpoint = "echo_item";
    item.group = "echo";
    item.handler = [](const Request& req) {
      return Response::json("{\"id\":" + jsonQuote(req.param("id").value_or("")) + "}");
    };
    if (auto s = r.add(std::move(item)); !s) return s;

    RouteSpec fixed;  // registered after the template: shadowed by it
    fixed.method = "GET";
    fixed.path = "/echo/items/special";
    fixed.endpoint = "echo_item_special";
    fixed.group = "echo";
    fixed.handler = [](const Request&) { return Response::json("{\"special\":true}"); };
    if (auto s = r.add(std::move(fixed)); !s) return s;

    RouteSpec boom;
    boom.method = "GET";
    boom.path = "/echo/throw";
    boom.endpoint = "echo_throw";
    boom.group = "echo";
    boom.handler = [](const Request&) -> Response { throw std::runtime_error("kaboom"); };
    if (auto s = r.add(std::move(boom)); !s) return s;

    RouteSpec scoped;
    scoped.method = "GET";
    scoped.path = "/echo/scoped";
    scoped.endpoint = "echo_scoped";
    scoped.group = "echo";
    scoped.scopes = {"echo:read"};
    scoped.handler = [](const Request&) { return Response::json("{\"ok\":true}"); };
    if (auto s = r.add(std::move(scoped)); !s) return s;

    RouteSpec stream;
    stream.method = "POST";
    stream.path = "/echo/stream";
    stream.endpoint = "echo_stream";
    stream.group = "echo";
    stream.streaming = true;
    stream.stream_handler = [](const Request& req, SseStream& sse) -> std::optional<Response> {
      auto count = req.json.integer("count", 3);
      if (!count || *count <= 0) return Response::error(400, "Invalid 'count'", "ValueError");
      auto delay = req.json.integer("delay_ms", 0);
      for (std::int64_t i = 0; i < *count; ++i) {
        if (*delay > 0) std::this_thread::sleep_for(std::chrono::milliseconds(*delay));
        if (!sse.event("progress", "{\"step\":" + std::to_string(i + 1) + "}")) return std::nullopt;
      }
      sse.event("done", "{\"total\":" + std::to_string(*count) + "}");
      return std::nullopt;
    };
    if (auto s = r.add(std::move(stream)); !s) return s;

    // The PathGuard as plugins see it: the endpoint's policy paths rule.
    RouteSpec guarded;
    guarded.method = "GET";
    guarded.path = "/echo/path";
    guarded.endpoint = "echo_path";
    guarded.group = "echo";
    guarded.handler = [&host](const Request& req) {
      auto op_name = req.queryParam("op").value_or("read");
      PathOp op = op_name == "write"    ? PathOp::write
                  : op_name == "remove" ? PathOp::remove
                                        : PathOp::read;
      auto verdict = host.paths().check("echo_path", req.queryParam("path").value_or(""), op);
      if (!verdict.allowed)
        return Response::error(verdict.status, verdict.message, "PermissionError", verdict.code);
      return Response::json("{\"resolved\":" + jsonQuote(verdict.resolved) + "}");
    };
    if (auto s = r.add(std::move(guarded)); !s) return s;

    // Reports the effective policy rule the kernel attached to the request.
    RouteSpec limits;
    limits.method = "GET";
    limits.path = "/echo/policy";
    limits.endpoint = "echo_policy";
    limits.group = "echo";
    limits.handler = [](const Request& req) {
      const auto& p = *req.policy;
      std::string body =
          "{\"rule\":" + jsonQuote(p.rule) + ",\"timeout_seconds\":" +
          (p.limits.timeout_seconds ? std::to_string(static_cast<int>(*p.limits.timeout_seconds))
                                    : "null") +
          ",\"overwrite\":" +
          (p.params.boolean("overwrite") ? (*p.params.boolean("overwrite") ? "true" : "false")
                                         : "null") +
          "}";
      return Response::json(body);
    };
    if (auto s = r.add(std::move(limits)); !s) return s;

    // Reads its body as it arrives: counts bytes and sums them.
    RouteSpec raw;
    raw.method = "POST";
    raw.path = "/echo/raw";
    raw.endpoint = "echo_raw";
    raw.group = "echo";
    raw.raw_body = true;
    raw.max_request_bytes = 64u << 20;
    raw.handler = [](const Request& req) {
      char buf[65536];
      std::uint64_t count = 0, sum = 0;
      while (std::size_t n = req.body_reader->read(buf, sizeof buf)) {
        count += n;
        for (std::size_t i = 0; i < n; ++i) sum += static_cast<unsigned char>(buf[i]);
      }
      return Response::json("{\"bytes\":" + std::to_string(count) +
                            ",\"sum\":" + std::to_string(sum) +
                            ",\"declared\":" + std::to_string(req.body_reader->length()) + "}");
    };
    if (auto s = r.add(std::move(raw)); !s) return s;

    // Streams n bytes of 'a'..'z' (chunked unless ?sized=1; ?fail=1 stops half-way).
    RouteSpec bytes;
    bytes.method = "GET";
    bytes.path = "/echo/bytes";
    bytes.endpoint = "echo_bytes";
    bytes.group = "echo";
    bytes.handler = [](const Request& req) {
      std::int64_t n = std::stoll(std::string(req.queryParam("n").value_or("0")));
      bool fail = req.queryParam("fail") == "1";
      Response r;
      r.content_type = "application/octet-stream";
      if (req.queryParam("sized") == "1") r.stream_length = n;
      r.body_stream = [n, fail](BodyWriter& w) {
        std::string chunk(8192, 'a');
        std::int64_t left = n;
        while (left > 0) {
          if (fail && left <= n / 2) return false;
          auto len = static_cast<std::size_t>(std::min<std::int64_t>(left, 8192));
          for (std::size_t i = 0; i < len; ++i)
            chunk[i] = static_cast<char>('a' + (n - left + static_cast<std::int64_t>(i)) % 26);
          if (!w.write(std::string_view(chunk.data(), len))) return false;
          left -= static_cast<std::int64_t>(len);
        }
        return true;
      };
      return r;
    };
    if (auto s = r.add(std::move(bytes)); !s) return s;

    RouteSpec optin;
    optin.method = "GET";
    optin.path = "/echo-optin/ping";
    optin.endpoint = "echo_optin_ping";
    optin.group = "echo_optin";
    optin.handler = [](const Request&) { return Response::json("{\"pong\":true}"); };
    if (auto s = r.add(std::move(optin)); !s) return s;

    CommandSpec add;
    add.name = "add";
    add.description = "Add two integers.";
    add.args = {{"a", ArgType::integer, true, std::nullopt, "first"},
                {"b", ArgType::integer, false, CommandValue{std::int64_t{1}}, "second"}};
    add.fn = [](const CommandArgs& args) -> Result<std::string> {
      return std::to_string(std::get<std::int64_t>(args.at("a")) +
                            std::get<std::int64_t>(args.at("b")));
    };
    return host.commands().add(std::move(add));
  }
};

std::unique_ptr<Plugin> make(HostContext&) { return std::make_unique<EchoPlugin>(); }

}  // namespace

ABX_DECLARE_PLUGIN(make, "test.echo", "0.0.1", ABX_KIND_CAPABILITY, nullptr)
