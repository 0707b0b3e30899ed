// RouteTable: every route is one endpoint with one id and one group.
// `{param}` templates match one path segment; routes match in registration
// order. Literal routes that no earlier route shadows are found by hash.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "abx/sdk/routes.h"

namespace abx::kernel {

/** A declared capability group and who declared it. */
struct GroupRecord {
  sdk::GroupSpec spec;
  std::string owner; /**< plugin id, or "core" */
};

struct Route {
  sdk::RouteSpec spec;
  std::string owner; /**< plugin id, or "core" */
  std::size_t index = 0;
  /** Path segments; a param segment holds its name and param = true. */
  struct Segment {
    std::string text;
    bool param = false;
  };
  std::vector<Segment> segments;
};

class RouteTable {
 public:
  /** Validates method, template, id uniqueness and method+path uniqueness. */
  sdk::Status add(sdk::RouteSpec spec, std::string owner);

  struct Match {
    const Route* route = nullptr;
    sdk::ParamMap params;
  };
  /** @p path must be normalised (no query, no trailing slash). */
  std::optional<Match> match(std::string_view method, std::string_view path) const;

  const Route* findEndpoint(std::string_view id) const;
  /** Drops every route added after the first @p size (a failed plugin's). */
  void truncate(std::size_t size);
  const std::vector<std::unique_ptr<Route>>& routes() const { return routes_; }
  std::size_t size() const { return routes_.size(); }

 private:
  static bool matches(const Route& route, std::string_view method,
                      const std::vector<std::string_view>& segments, sdk::ParamMap* params);

  std::vector<std::unique_ptr<Route>> routes_;
  std::unordered_map<std::string, const Route*> by_id_;
  /** "METHOD /literal/path" -> route, for literal routes nothing earlier shadows. */
  std::unordered_map<std::string, const Route*> literal_;
  /** Everything not in literal_, in registration order. */
  std::vector<const Route*> scanned_;
};

/** Splits "/a/b" into {"a","b"}; "/" gives {}. */
std::vector<std::string_view> splitPath(std::string_view path);

}  // namespace abx::kernel
