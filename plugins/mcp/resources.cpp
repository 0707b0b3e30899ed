#include "resources.h"

#include <deque>
#include <vector>

#include "tool_call.h"

namespace abx::plugins::mcp {
namespace {

constexpr std::string_view kScheme = "file://";

std::string join(const std::string& dir, std::string_view name) {
  return dir == "/" ? "/" + std::string(name) : dir + "/" + std::string(name);
}

// The files of the base dir, breadth first, within the limits.
std::vector<std::string> walk(sdk::HostContext& host, const sdk::Identity& caller,
                              const ResourceLimits& limits) {
  std::vector<std::string> files;
  std::deque<std::string> dirs{host.info().base_dir.empty() ? "/" : host.info().base_dir};
  std::size_t opened = 0;
  while (!dirs.empty() && opened < limits.max_dirs && files.size() < limits.max_total) {
    std::string dir = std::move(dirs.front());
    dirs.pop_front();
    ++opened;
    sdk::LocalCall call;
    call.endpoint = "files_list";
    call.identity = caller;
    call.query = {{"path", dir}};
    auto answer = host.call(call);
    if (answer.status != 200) continue;  // a directory the policy hides stays hidden
    auto body = sdk::Json::parse(answer.body);
    if (!body) continue;
    for (const auto& entry : body->get("entries").elements()) {
      auto path = join(dir, entry.get("name").stringView());
      if (entry.get("type").stringView() == "directory")
        dirs.push_back(std::move(path));
      else if (files.size() < limits.max_total)
        files.push_back(std::move(path));
    }
  }
  return files;
}

}  // namespace

std::string listResources(sdk::HostContext& host, const sdk::Identity& caller, std::size_t cursor,
                          const ResourceLimits& limits) {
  auto files = walk(host, caller, limits);
  sdk::JsonWriter w;
  w.beginObject().key("resources").beginArray();
  const std::size_t end = std::min(files.size(), cursor + limits.page);
  for (std::size_t i = cursor; i < end; ++i) {
    auto slash = files[i].rfind('/');
    w.beginObject().member("uri", std::string(kScheme) + files[i]);
    w.member("name", files[i].substr(slash + 1)).endObject();
  }
  w.endArray();
  if (end < files.size()) w.member("nextCursor", std::to_string(end));
  return w.endObject().take();
}

ReadOutcome readResource(sdk::HostContext& host, const sdk::Identity& caller,
                         const std::string& uri) {
  ReadOutcome out;
  if (!uri.starts_with(kScheme) || uri.size() <= kScheme.size() || uri[kScheme.size()] != '/') {
    out.error = "Only file:///absolute/path URIs are resources here";
    return out;
  }
  sdk::LocalCall call;
  call.endpoint = "download";
  call.identity = caller;
  call.query = {{"path", uri.substr(kScheme.size())}};
  auto answer = host.call(call);
  auto body = sdk::Json::parse(answer.body);
  if (answer.status != 200 || !body) {
    out.error = "HTTP " + std::to_string(answer.status) + ": " + answer.body;
    return out;
  }
  auto b64 = body->get("content_base64").stringView();
  auto bytes = decodeBase64(b64);
  sdk::JsonWriter w;
  w.beginObject().key("contents").beginArray().beginObject().member("uri", uri);
  if (bytes && validUtf8(*bytes))
    w.member("mimeType", "text/plain").member("text", *bytes);
  else
    w.member("mimeType", "application/octet-stream").member("blob", b64);
  out.result = w.endObject().endArray().endObject().take();
  return out;
}

}  // namespace abx::plugins::mcp
