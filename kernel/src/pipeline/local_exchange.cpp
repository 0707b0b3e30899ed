#include "pipeline/local_exchange.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstring>

#include "abx/sdk/http_head.h"
#include "abx/sdk/text_codecs.h"
#include "routing/route_table.h"

namespace abx::kernel {
namespace {

// The kernel's SSE writer stands in for a socket; here each event goes to
// the caller's callback, and frames written by a feed are split back into
// events. Detaching is refused, so a route serves its feed on this thread.
class LocalSse final : public sdk::SseStream {
 public:
  explicit LocalSse(const sdk::LocalCall& call) : call_(call) {}
  bool begin() override { return open(); }
  bool event(std::string_view name, std::string_view data) override {
    if (!open()) return false;
    if (call_.on_event && !call_.on_event(name, data)) closed_ = true;
    return open();
  }
  bool comment(std::string_view) override { return open(); }
  bool open() const override { return !closed_.load(); }
  bool frames(std::string_view encoded) override {
    std::string name, data;
    bool has_data = false;
    while (!encoded.empty()) {
      auto end = encoded.find('\n');
      auto line = encoded.substr(0, end);
      encoded = end == std::string_view::npos ? std::string_view() : encoded.substr(end + 1);
      if (line.empty()) {
        if ((has_data || !name.empty()) && !event(name.empty() ? "message" : name, data))
          return false;
        name.clear(), data.clear(), has_data = false;
      } else if (line.starts_with("event:")) {
        name = std::string(line.substr(line.starts_with("event: ") ? 7 : 6));
      } else if (line.starts_with("data:")) {
        if (has_data) data += '\n';
        data += line.substr(line.starts_with("data: ") ? 6 : 5);
        has_data = true;
      }
    }
    return open();
  }
  bool header(std::string_view, std::string_view) override { return true; }

 private:
  const sdk::LocalCall& call_;
  std::atomic<bool> closed_{false};
};

// Collects a streamed body up to a cap.
class StringWriter final : public sdk::BodyWriter {
 public:
  StringWriter(std::string& out, std::size_t cap) : out_(out), cap_(cap) {}
  bool write(std::string_view bytes) override {
    if (out_.size() + bytes.size() > cap_) {
      over_ = true;
      return false;
    }
    out_.append(bytes);
    return true;
  }
  bool over() const { return over_; }

 private:
  std::string& out_;
  std::size_t cap_;
  bool over_ = false;
};

}  // namespace

std::optional<std::string> localTarget(const Route& route, const sdk::LocalCall& call) {
  std::string target;
  for (const auto& segment : route.segments) {
    target += '/';
    if (!segment.param) {
      target += segment.text;
      continue;
    }
    auto it = call.path_params.find(segment.text);
    if (it == call.path_params.end() || it->second.empty()) return std::nullopt;
    target += sdk::percentEncode(it->second);
  }
  if (target.empty()) target = "/";
  char sep = '?';
  for (const auto& [name, value] : call.query) {
    target += sep;
    target += sdk::percentEncode(name) + "=" + sdk::percentEncode(value);
    sep = '&';
  }
  return target;
}

LocalExchange::LocalExchange(const sdk::LocalCall& call, std::string method, std::string target)
    : call_(call), method_(std::move(method)), target_(std::move(target)), headers_(call.headers) {
  if (!call.body.empty()) {
    headers_.emplace_back("content-type", "application/json");
    headers_.emplace_back("content-length", std::to_string(call.body.size()));
  }
}

std::vector<std::string_view> LocalExchange::headerValues(std::string_view name) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : headers_)
    if (sdk::equalsIgnoreCase(k, name)) out.push_back(v);
  return out;
}

std::optional<std::int64_t> LocalExchange::contentLength() const {
  if (call_.body.empty()) return std::nullopt;
  return static_cast<std::int64_t>(call_.body.size());
}

bool LocalExchange::readBody(std::string& out, std::size_t length) {
  if (length > call_.body.size() - read_) return false;
  out.assign(call_.body, read_, length);
  read_ += length;
  return true;
}

std::size_t LocalExchange::readSome(char* buffer, std::size_t n) {
  std::size_t got = std::min(n, call_.body.size() - read_);
  std::memcpy(buffer, call_.body.data() + read_, got);
  read_ += got;
  return got;
}

void LocalExchange::send(const sdk::Response& response) {
  sdk::Response copy;
  copy.status = response.status;
  copy.content_type = response.content_type;
  copy.headers = response.headers;
  for (const auto& h : extra_headers_) copy.headers.push_back(h);
  if (response.body_stream) {
    StringWriter writer(copy.body, call_.max_response_bytes);
    if (!response.body_stream(writer) || writer.over()) {
      copy = sdk::Response::error(502, "The answer is larger than the in-process call's limit",
                                  "RuntimeError", "response_too_large");
    }
  } else {
    copy.body = response.body;
  }
  answer_ = std::move(copy);
}

void LocalExchange::stream(
    const std::function<std::optional<sdk::Response>(sdk::SseStream&)>& producer,
    std::shared_ptr<void> /*hold: released when the producer returns*/) {
  LocalSse sse(call_);
  if (auto reply = producer(sse)) return send(*reply);
  sdk::Response done;
  done.content_type = "text/event-stream";
  answer_ = std::move(done);
}

void LocalExchange::addResponseHeader(const std::string& name, const std::string& value) {
  extra_headers_.emplace_back(name, value);
}

sdk::Response LocalExchange::take() {
  if (answer_) return std::move(*answer_);
  return sdk::Response::error(500, "The endpoint gave no answer", "InternalError");
}

}  // namespace abx::kernel
