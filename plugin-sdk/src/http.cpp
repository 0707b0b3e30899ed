// Request accessors, the standard error body and scope matching.
#include "abx/sdk/http.h"

#include "abx/sdk/http_error.h"

namespace abx::sdk {

bool Identity::hasScope(std::string_view scope) const {
  for (const auto& held : scopes) {
    if (held == "*" || held == scope) return true;
    // "files:*" covers "files:read"; "commands:run" covers "commands:run:<name>"
    // (a scope narrows by appending ":<name>"; bare group names cover nothing).
    if (held.size() >= 2 && held.ends_with(":*") &&
        scope.starts_with(std::string_view(held).substr(0, held.size() - 1)))
      return true;
    if (held.find(':') != std::string::npos && scope.size() > held.size() &&
        scope.starts_with(held) && scope[held.size()] == ':')
      return true;
  }
  return false;
}

namespace {
std::optional<std::string_view> lookup(const ParamMap& map, std::string_view key) {
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  return std::string_view(it->second);
}
}  // namespace

std::optional<std::string_view> Request::header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers)
    if (name == lower_name) return std::string_view(value);
  return std::nullopt;
}

std::optional<std::string_view> Request::param(std::string_view name) const {
  return lookup(path_params, name);
}

std::optional<std::string_view> Request::queryParam(std::string_view name) const {
  return lookup(query, name);
}

const Params& Request::policyParams() const {
  static const Params kNone;
  return policy ? policy->params : kNone;
}

Response Response::error(int status, std::string_view message, std::string_view type,
                         std::string_view code) {
  HttpError e;
  e.status = status;
  e.message = message;
  e.type = type;
  e.code = code;
  return e.toResponse();
}

bool SseStream::events(const std::vector<Event>& batch) {
  for (const auto& e : batch)
    if (!event(e.name, e.data)) return false;
  return open();
}

std::shared_ptr<SseWaker> SseStream::detach(std::shared_ptr<SseFeed>) { return nullptr; }

bool SseStream::frames(std::string_view) { return false; }

bool SseStream::header(std::string_view, std::string_view) { return false; }

std::shared_ptr<DeferredAnswer> SseStream::defer(std::function<void()>) { return nullptr; }

void SseFeed::closed() {}

void appendSseFrame(std::string& out, std::string_view name, std::string_view data,
                    std::string_view id) {
  out.reserve(out.size() + name.size() + data.size() + id.size() + 24);
  if (!id.empty()) {
    out += "id: ";
    out += id;
    out += '\n';
  }
  if (!name.empty()) {
    out += "event: ";
    out += name;
    out += '\n';
  }
  // Every line of the data its own `data:` line: a raw newline would end the event.
  std::size_t start = 0;
  while (true) {
    std::size_t end = data.find('\n', start);
    out += "data: ";
    out += data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += '\n';
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  out += '\n';
}

}  // namespace abx::sdk
