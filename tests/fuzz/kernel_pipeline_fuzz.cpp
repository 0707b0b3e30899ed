// kernel_fuzz sub-target: one HTTP request through the kernel's request
// head parser and then the whole Pipeline (route match, authentication,
// admission, query, Transfer-Encoding, bounded JSON body, handler) over an
// in-memory exchange and a small route table, as tests/unit/pipeline_test
// builds one.
//
// Input: the request bytes (head, blank line, body; a missing blank line is
// added). Checked:
//   - a parsed head has a token method, a target without controls or
//     spaces, token field names, values without CR/NUL or outer blanks, at
//     most one Content-Length; written out again it parses to the same head;
//   - the pipeline answers exactly once, with a status in 200..599 and a
//     JSON body that the SDK parser reads;
//   - a handler only runs (2xx) for a caller that sent the token when the
//     route needs one, sees the normalised path and at most its route's
//     body limit, and a raw-body handler never reads past Content-Length.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/http_head.h"
#include "abx/sdk/json.h"
#include "fuzz_check.h"
#include "pipeline/pipeline.h"

namespace abx::fuzz {
namespace {

using kernel::Pipeline;
using sdk::Request;
using sdk::Response;

constexpr const char* kToken = "tok3n";
constexpr std::size_t kRawLimit = 48;

class NullSse final : public sdk::SseStream {
 public:
  bool begin() override { return began = true; }
  bool event(std::string_view, std::string_view) override { return began = true; }
  bool comment(std::string_view) override { return true; }
  bool open() const override { return true; }
  bool began = false;
};

/** The head as the socket exchange presents it; the body as bytes in memory. */
class HeadExchange final : public kernel::Exchange {
 public:
  HeadExchange(const sdk::RequestHead& head, std::string_view body) : head_(head), body_(body) {}

  std::string_view method() const override { return head_.method; }
  std::string_view target() const override { return head_.target; }
  std::vector<std::string_view> headerValues(std::string_view name) const override {
    return head_.values(name);
  }
  std::vector<std::pair<std::string, std::string>> headers() const override {
    auto out = head_.headers;
    for (auto& [k, v] : out)
      for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }
  // As the socket exchange reads it: one decimal, else -1.
  std::optional<std::int64_t> contentLength() const override {
    auto values = head_.values("Content-Length");
    if (values.empty()) return std::nullopt;
    std::int64_t n = -1;
    auto v = values.front();
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || ptr != v.data() + v.size() || n < 0) return -1;
    return n;
  }
  bool readBody(std::string& out, std::size_t length) override {
    out = std::string(body_.substr(0, length));
    return out.size() == length;
  }
  // Hands out every byte after the head, Content-Length or not: the
  // pipeline's reader must stop at Content-Length itself.
  std::size_t readSome(char* buffer, std::size_t n) override {
    const std::size_t got = std::min(n, body_.size() - read_);
    std::copy_n(body_.data() + read_, got, buffer);
    read_ += got;
    return got;
  }
  void send(const Response& response) override { sent.push_back(response); }
  void stream(const std::function<std::optional<Response>(sdk::SseStream&)>& producer,
              std::shared_ptr<void>) override {
    NullSse sse;
    auto reply = producer(sse);
    if (reply && !sse.began) sent.push_back(*reply);
    if (sse.began) ++streams;
  }
  void addResponseHeader(const std::string&, const std::string&) override {}
  std::string localAddress() const override { return "127.0.0.1"; }

  std::vector<Response> sent;
  int streams = 0;
  std::size_t read_ = 0;

 private:
  const sdk::RequestHead& head_;
  std::string_view body_;
};

/** What the last handler saw (handlers are plain function pointers). */
struct Seen {
  bool ran = false;
  std::string path;
  std::size_t body = 0;
} g_seen;

Response echo(const Request& r) {
  g_seen = {true, r.path, r.body.size()};
  return Response::json(r.json.dump());
}

Response rawRead(const Request& r) {
  std::string all;
  char buf[7];
  for (std::size_t n; r.body_reader && (n = r.body_reader->read(buf, sizeof buf)) > 0;)
    all.append(buf, n);
  g_seen = {true, r.path, all.size()};
  return Response::json("{}");
}

sdk::RouteSpec route(const char* method, const char* path, const char* id, bool auth,
                     Response (*fn)(const Request&)) {
  sdk::RouteSpec s;
  s.method = method;
  s.path = path;
  s.endpoint = id;
  s.group = "g";
  s.handler = fn;
  s.auth_required = auth;
  return s;
}

struct World {
  World() : sink(std::fopen("/dev/null", "w")), pipeline(64) {
    auto dispatch = std::make_shared<kernel::Dispatch>();
    auto& t = *dispatch->routes;
    auto add = [&](sdk::RouteSpec s) { check(t.add(std::move(s), "fuzz").isOk(), "route table"); };
    add(route("GET", "/health", "health", false, echo));
    add(route("POST", "/echo", "echo_post", true, echo));
    add(route("PUT", "/items/{id}", "items_put", true, echo));
    add(route("GET", "/items/{id}", "items_get", true, echo));
    add(route("DELETE", "/open/{x}", "open_delete", false, echo));
    auto raw = route("POST", "/raw", "raw_post", false, rawRead);
    raw.raw_body = true;
    raw.max_request_bytes = kRawLimit;
    add(std::move(raw));
    sdk::RouteSpec stream = route("GET", "/stream", "stream", false, nullptr);
    stream.streaming = true;
    stream.stream_handler = [](const Request& r, sdk::SseStream& sse) -> std::optional<Response> {
      if (r.queryParam("mode") == "reject") return Response::error(400, "bad mode", "ValueError");
      sse.event("start", "{}");
      return std::nullopt;
    };
    add(std::move(stream));
    std::vector<kernel::GroupRecord> groups = {{{"g", false, ""}, "fuzz"}};
    dispatch->admission =
        std::make_unique<kernel::DefaultAdmission>(t, groups, std::vector<std::string>{});
    dispatch->auth = std::make_unique<kernel::Authenticator>(std::string(kToken));
    dispatch->audit = std::make_unique<kernel::AuditLog>(kernel::AuditMode::deny, sink);
    pipeline.publish(std::move(dispatch));
  }
  std::FILE* sink;
  Pipeline pipeline;
};

bool blankAtEdge(std::string_view v) {
  return !v.empty() &&
         (v.front() == ' ' || v.front() == '\t' || v.back() == ' ' || v.back() == '\t');
}

// The kernel's HTTP front end allows this many header fields.
constexpr std::size_t kMaxFields = 200;

void checkHead(const sdk::RequestHead& head, std::string_view text) {
  check(!head.method.empty() && head.method.find_first_of(" \t\r\n:") == std::string::npos,
        "a token method", text);
  check(!head.target.empty() &&
            std::none_of(head.target.begin(), head.target.end(),
                         [](char c) { return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f; }),
        "a target without controls or spaces", text);
  check(head.values("content-length").size() <= 1, "at most one Content-Length", text);
  std::string again =
      head.method + " " + head.target + " HTTP/1." + std::to_string(head.minor_version) + "\r\n";
  for (const auto& [k, v] : head.headers) {
    check(!k.empty() && k.find_first_of(" \t\r\n:") == std::string::npos, "a token name", text);
    check(v.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos && !blankAtEdge(v),
          "a clean header value", text);
    again += k + ": " + v + "\r\n";
  }
  again += "\r\n";
  check(sdk::headEnd(again) == again.size(), "a written head ends at its blank line", text);
  auto parsed = sdk::parseRequestHead(again, kMaxFields);
  const auto* reparsed = std::get_if<sdk::RequestHead>(&parsed);
  check(reparsed && reparsed->method == head.method && reparsed->target == head.target &&
            reparsed->minor_version == head.minor_version && reparsed->headers == head.headers,
        "a written head parses to itself", text);
}

}  // namespace

void fuzzPipeline(std::string_view data) {
  static World world;
  std::string owned;
  std::size_t end = sdk::headEnd(data);
  if (end == std::string_view::npos) {
    owned = std::string(data) + "\r\n\r\n";
    data = owned;
    end = data.size();
  }
  auto parsed = sdk::parseRequestHead(data.substr(0, end), kMaxFields);
  const auto* head = std::get_if<sdk::RequestHead>(&parsed);
  if (!head) {
    const auto& error = std::get<sdk::HeadError>(parsed);
    check(error.status == 400 || error.status == 414 || error.status == 431 || error.status == 505,
          "a head error is 400, 414, 431 or 505", data);
    return;
  }
  checkHead(*head, data);

  HeadExchange ex(*head, data.substr(end));
  g_seen = {};
  world.pipeline.handle(ex);
  check(ex.sent.size() + static_cast<std::size_t>(ex.streams) == 1, "exactly one answer", data);
  if (ex.streams) return;
  const auto& answer = ex.sent.front();
  check(answer.status >= 200 && answer.status <= 599, "a status in 200..599", data);
  if (answer.content_type.starts_with("application/json"))
    check(sdk::Json::parse(answer.body).isOk(), "a JSON answer parses", data);
  if (!g_seen.ran) return;
  check(g_seen.path == Pipeline::normalisePath(head->target), "the handler sees the path", data);
  const bool open =
      g_seen.path == "/health" || g_seen.path == "/raw" || g_seen.path.starts_with("/open/");
  check(open || data.find(kToken) != std::string_view::npos, "a handler behind auth saw the token",
        data);
  check(g_seen.body <= (g_seen.path == "/raw" ? kRawLimit : 64), "the body limit holds", data);
  if (g_seen.path == "/raw") {
    const auto length = std::max<std::int64_t>(ex.contentLength().value_or(0), 0);
    check(g_seen.body <= static_cast<std::size_t>(length), "a raw body stays within Content-Length",
          data);
  }
}

}  // namespace abx::fuzz
