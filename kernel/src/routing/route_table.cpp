#include "routing/route_table.h"

#include <algorithm>
#include <cctype>

#include "abx/sdk/text_codecs.h"

namespace abx::kernel {

std::vector<std::string_view> splitPath(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    std::size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    out.push_back(path.substr(i, end - i));
    i = end;
  }
  return out;
}

namespace {

bool validMethod(std::string_view m) {
  return m == "GET" || m == "POST" || m == "PUT" || m == "PATCH" || m == "DELETE";
}

bool validIdentifier(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

sdk::Status RouteTable::add(sdk::RouteSpec spec, std::string owner) {
  if (!validMethod(spec.method))
    return sdk::Status::error(
        "route " + spec.endpoint + ": unsupported method '" + spec.method + "'", "ValueError");
  if (spec.path.empty() || spec.path.front() != '/' ||
      (spec.path.size() > 1 && spec.path.back() == '/'))
    return sdk::Status::error("route " + spec.endpoint + ": path '" + spec.path +
                                  "' must start with '/' and not end with '/'",
                              "ValueError");
  // The pipeline collapses "//" and strips "?..." / "#..." before matching,
  // so such a route could never be reached.
  if (spec.path.find("//") != std::string::npos ||
      spec.path.find_first_of("?#") != std::string::npos)
    return sdk::Status::error("route " + spec.endpoint + ": path '" + spec.path +
                                  "' has an empty segment, '?' or '#' and could never match",
                              "ValueError");
  if (!validIdentifier(spec.endpoint))
    return sdk::Status::error("route " + spec.method + " " + spec.path +
                                  ": endpoint id must be [A-Za-z0-9_]+, got '" + spec.endpoint +
                                  "'",
                              "ValueError");
  if (spec.group.empty())
    return sdk::Status::error("route " + spec.endpoint + ": group is required", "ValueError");
  if (spec.streaming ? !spec.stream_handler : !spec.handler)
    return sdk::Status::error("route " + spec.endpoint + ": no handler for a " +
                                  (spec.streaming ? "streaming" : "plain") + " route",
                              "ValueError");
  if (by_id_.count(spec.endpoint))
    return sdk::Status::error("duplicate endpoint id '" + spec.endpoint + "'", "ValueError");

  auto route = std::make_unique<Route>();
  bool literal = true;
  for (auto seg : splitPath(spec.path)) {
    Route::Segment s;
    if (seg.size() >= 2 && seg.front() == '{' && seg.back() == '}') {
      s.text = std::string(seg.substr(1, seg.size() - 2));
      s.param = true;
      literal = false;
      if (!validIdentifier(s.text))
        return sdk::Status::error(
            "route " + spec.endpoint + ": bad parameter '" + std::string(seg) + "'", "ValueError");
    } else if (seg.find_first_of("{}") != std::string_view::npos) {
      return sdk::Status::error("route " + spec.endpoint + ": a parameter must be a whole segment",
                                "ValueError");
    } else {
      s.text = std::string(seg);
    }
    route->segments.push_back(std::move(s));
  }
  for (const auto& existing : routes_) {
    if (existing->spec.method != spec.method || existing->segments.size() != route->segments.size())
      continue;
    bool same = true;
    for (std::size_t i = 0; same && i < route->segments.size(); ++i) {
      const auto& a = existing->segments[i];
      const auto& b = route->segments[i];
      same = a.param == b.param && (a.param || a.text == b.text);
    }
    if (same)
      return sdk::Status::error("route " + spec.endpoint + ": " + spec.method + " " + spec.path +
                                    " is already registered by " + existing->spec.endpoint,
                                "ValueError");
  }

  route->index = routes_.size();
  route->owner = std::move(owner);
  route->spec = std::move(spec);
  const Route* r = route.get();
  by_id_.emplace(r->spec.endpoint, r);

  bool shadowed = false;
  if (literal) {
    auto segments = splitPath(r->spec.path);
    for (const auto* earlier : scanned_)
      if (matches(*earlier, r->spec.method, segments, nullptr)) shadowed = true;
  }
  if (literal && !shadowed)
    literal_.emplace(r->spec.method + " " + r->spec.path, r);
  else
    scanned_.push_back(r);
  routes_.push_back(std::move(route));
  return sdk::Status::ok();
}

bool RouteTable::matches(const Route& route, std::string_view method,
                         const std::vector<std::string_view>& segments, sdk::ParamMap* params) {
  if (route.spec.method != method || route.segments.size() != segments.size()) return false;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const auto& s = route.segments[i];
    if (!s.param && s.text != segments[i]) return false;
  }
  if (params) {
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const auto& s = route.segments[i];
      if (!s.param) continue;
      std::string decoded;
      if (!sdk::percentDecode(segments[i], decoded)) decoded = std::string(segments[i]);
      (*params)[s.text] = std::move(decoded);
    }
  }
  return true;
}

std::optional<RouteTable::Match> RouteTable::match(std::string_view method,
                                                   std::string_view path) const {
  if (!literal_.empty()) {
    std::string key;
    key.reserve(method.size() + 1 + path.size());
    key.append(method).append(" ").append(path);
    if (auto it = literal_.find(key); it != literal_.end()) return Match{it->second, {}};
  }
  auto segments = splitPath(path);
  for (const auto* route : scanned_) {
    Match m;
    if (matches(*route, method, segments, &m.params)) {
      m.route = route;
      return m;
    }
  }
  return std::nullopt;
}

void RouteTable::truncate(std::size_t size) {
  if (size >= routes_.size()) return;
  std::vector<std::unique_ptr<Route>> kept;
  for (std::size_t i = 0; i < size; ++i) kept.push_back(std::move(routes_[i]));
  routes_.clear();
  by_id_.clear();
  literal_.clear();
  scanned_.clear();
  for (auto& route : kept) {
    auto spec = std::move(route->spec);
    auto owner = std::move(route->owner);
    add(std::move(spec), std::move(owner));  // re-validates nothing new: same routes, same order
  }
}

const Route* RouteTable::findEndpoint(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : it->second;
}

}  // namespace abx::kernel
