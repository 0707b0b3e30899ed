// addRoutes: the one way a plugin puts its endpoints on the server — a table
// with one row per endpoint (method, path, id, summary, scopes, handler),
// registered for one group in one call. Handlers are plain functions of the
// plugin's context and the request, so a route table reads as the API it is.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/routes.h"

namespace abx::sdk {

/** One endpoint of a group; exactly one of handler and stream is set.
 *  Arg is what each handler receives: `const Context&` (addRoutes) or the
 *  owning `const std::shared_ptr<Context>&` (addSharedRoutes). */
template <class Arg>
struct RouteRow {
  const char* method;
  const char* path; /**< "/process/{pid}/signal" */
  const char* endpoint;
  const char* summary;
  std::vector<std::string> scopes;
  Response (*handler)(Arg, const Request&) = nullptr;
  /** An SSE endpoint (RouteSpec::streaming). */
  std::optional<Response> (*stream)(Arg, const Request&, SseStream&) = nullptr;
  /** The handler reads the body itself (RouteSpec::raw_body). */
  bool raw_body = false;
  std::size_t max_request_bytes = 0; /**< 0: the host default */
  bool auth_required = true;
};

template <class ContextRef>
using ContextOf = std::remove_reference_t<decltype(*std::declval<ContextRef>())>;

namespace detail {

/** Adds @p rows, each handler called with what @p bind gives. */
template <class Arg, class Bind>
Status addRows(RouteRegistry& registry, std::string_view group,
               const std::vector<RouteRow<Arg>>& rows, Bind bind) {
  for (const auto& row : rows) {
    RouteSpec spec;
    spec.method = row.method;
    spec.path = row.path;
    spec.endpoint = row.endpoint;
    spec.group = std::string(group);
    spec.summary = row.summary;
    spec.scopes = row.scopes;
    spec.raw_body = row.raw_body;
    spec.max_request_bytes = row.max_request_bytes;
    spec.auth_required = row.auth_required;
    if (row.handler)
      spec.handler = [bind, fn = row.handler](const Request& r) { return fn(bind(), r); };
    if (row.stream) {
      spec.streaming = true;
      spec.stream_handler = [bind, fn = row.stream](const Request& r, SseStream& s) {
        return fn(bind(), r, s);
      };
    }
    if (auto status = registry.add(std::move(spec)); !status) return status;
  }
  return Status::ok();
}

}  // namespace detail

/**
 * Adds @p rows to @p group, each handler called with `*context`. @p context
 * is anything that dereferences to the Context (a pointer to a member, a
 * shared_ptr the handlers keep alive; a pointer to const for handlers that
 * take `const Context&`); it must outlive the routes.
 * @return the first failure of RouteRegistry::add.
 */
template <class ContextRef>
Status addRoutes(RouteRegistry& registry, std::string_view group, ContextRef context,
                 const std::vector<RouteRow<ContextOf<ContextRef>&>>& rows) {
  return detail::addRows(registry, group, rows,
                         [context]() -> ContextOf<ContextRef>& { return *context; });
}

/** The same for handlers that keep the context alive beyond the call (a
 *  detached stream, a deferred answer): each gets the shared_ptr itself. */
template <class Context>
Status addSharedRoutes(RouteRegistry& registry, std::string_view group,
                       std::shared_ptr<Context> context,
                       const std::vector<RouteRow<const std::shared_ptr<Context>&>>& rows) {
  return detail::addRows(registry, group, rows,
                         [context]() -> const std::shared_ptr<Context>& { return context; });
}

}  // namespace abx::sdk
