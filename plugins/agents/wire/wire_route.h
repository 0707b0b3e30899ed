// What every /v1 route file of the agents plugin shares: the RouteSpec of a
// route in group `agents`, a file's list of routes bound to its context,
// the wall clock the objects' timestamps use, a cursor page (or its 400) as
// a reply, and the answer to a DELETE.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "abx/sdk/json.h"
#include "abx/sdk/routes.h"
#include "list_page.h"
#include "openai_error.h"

namespace abx::plugins::agents {

inline sdk::RouteSpec agentsRoute(std::string method, std::string path, std::string endpoint,
                                  std::string summary, std::string scope) {
  sdk::RouteSpec spec;
  spec.method = std::move(method);
  spec.path = std::move(path);
  spec.endpoint = std::move(endpoint);
  spec.group = "agents";
  spec.summary = std::move(summary);
  spec.scopes = {std::move(scope)};
  return spec;
}

/** The routes of one route file as they are added: each in group `agents`
 *  with the file's scope, its handler given the file's context. */
template <class Context>
class AgentsRouteList {
 public:
  using Ctx = std::shared_ptr<const Context>;
  using Answer = sdk::Response (*)(const Ctx&, const sdk::Request&);
  using StreamAnswer = std::optional<sdk::Response> (*)(const Ctx&, const sdk::Request&,
                                                        sdk::SseStream&);

  AgentsRouteList(Ctx context, std::string scope)
      : context_(std::move(context)), scope_(std::move(scope)) {}

  /** A route answered by @p answer(context, request). */
  void add(std::string method, std::string path, std::string endpoint, std::string summary,
           Answer answer) {
    auto& spec = push(std::move(method), std::move(path), std::move(endpoint), std::move(summary));
    spec.handler = [ctx = context_, answer](const sdk::Request& r) { return answer(ctx, r); };
  }

  /** A streaming route answered by @p answer(context, request, stream). */
  void addStreaming(std::string method, std::string path, std::string endpoint, std::string summary,
                    StreamAnswer answer) {
    auto& spec = push(std::move(method), std::move(path), std::move(endpoint), std::move(summary));
    spec.streaming = true;
    spec.stream_handler = [ctx = context_, answer](const sdk::Request& r, sdk::SseStream& s) {
      return answer(ctx, r, s);
    };
  }

  std::vector<sdk::RouteSpec> take() { return std::move(routes_); }

 private:
  sdk::RouteSpec& push(std::string method, std::string path, std::string endpoint,
                       std::string summary) {
    return routes_.emplace_back(agentsRoute(std::move(method), std::move(path), std::move(endpoint),
                                            std::move(summary), scope_));
  }

  const Ctx context_;
  const std::string scope_;
  std::vector<sdk::RouteSpec> routes_;
};

/** Unix seconds (created_at and friends). */
inline std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/** listPage() as the reply: the page, or the envelope of its 400. */
inline sdk::Response pageResponse(const sdk::Request& request, PageItems items) {
  auto page = listPage(request, std::move(items));
  if (auto* error = std::get_if<WireError>(&page)) return openAiError(*error);
  return sdk::Response::json(std::get<std::string>(page));
}

/** The answer to a DELETE: {"id", "object": @p object, "deleted": true}. */
inline sdk::Response deletedResponse(std::string_view id, std::string_view object) {
  sdk::JsonWriter w(id.size() + object.size() + 48);
  w.beginObject().member("id", id).member("object", object).member("deleted", true).endObject();
  return sdk::Response::json(w.take());
}

}  // namespace abx::plugins::agents
