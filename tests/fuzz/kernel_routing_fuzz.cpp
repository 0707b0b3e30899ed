// kernel_fuzz sub-target: the kernel's routing of a request target
// (Pipeline::normalisePath, RouteTable::match over a small table of literal
// and `{param}` routes, percentDecode, Pipeline::parseQuery).
//
// Input: a byte picking the method, then the request target. Checked:
//   - percentDecode accepts exactly the texts whose every '%' starts a
//     two-hex-digit escape, and encode-then-decode gives any bytes back
//     (the path, the decoded path, the query);
//   - the normalised path starts with '/', has no "//", no '?' or '#', no
//     trailing '/' (but "/"), and normalising it again changes nothing;
//   - a matched route has the method, as many segments as the path and the
//     same literal segments; each parameter is its segment percent-decoded
//     (or the raw segment when that is malformed); the literal fast path and
//     the ordered scan agree (the first route in order that fits wins);
//   - a query that parses re-encodes to a query that parses to the same
//     names, values and arrays.
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abx/sdk/text_codecs.h"
#include "fuzz_check.h"
#include "pipeline/pipeline.h"
#include "routing/route_table.h"

namespace abx::fuzz {
namespace {

using kernel::Pipeline;
using kernel::RouteTable;
using kernel::splitPath;
using sdk::percentDecode;
using sdk::percentEncode;

const char* const kMethods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "get", ""};

const RouteTable& table() {
  static const std::unique_ptr<RouteTable> routes = [] {
    auto t = std::make_unique<RouteTable>();
    const char* const specs[][2] = {{"GET", "/health"},
                                    {"GET", "/files/{path}"},
                                    {"GET", "/files/list"},
                                    {"POST", "/files/{path}/copy"},
                                    {"GET", "/a/{x}/b/{y}"},
                                    {"DELETE", "/a/{x}"},
                                    {"GET", "/v1/agents/{id}"},
                                    {"GET", "/v1/agents/list"},
                                    {"PUT", "/"},
                                    {"GET", "/%41"},
                                    {"PATCH", "/{only}"},
                                    {"GET", "/v1/sessions/{id}/events"}};
    int n = 0;
    for (const auto& [method, path] : specs) {
      sdk::RouteSpec s;
      s.method = method;
      s.path = path;
      s.endpoint = "r" + std::to_string(n++);
      s.group = "g";
      s.handler = [](const sdk::Request&) { return sdk::Response::json("{}"); };
      check(t->add(std::move(s), "fuzz").isOk(), "the fuzz route table is valid");
    }
    return t;
  }();
  return *routes;
}

bool wellFormedEscapes(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || !std::isxdigit(static_cast<unsigned char>(s[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(s[i + 2])))
      return false;
    i += 2;
  }
  return true;
}

void checkDecoding(std::string_view text) {
  std::string decoded, again;
  const bool ok = percentDecode(text, decoded);
  check(ok == wellFormedEscapes(text), "percentDecode accepts exactly well-formed escapes", text);
  check(percentDecode(percentEncode(text), again) && again == text, "decode(encode(x)) == x", text);
  if (ok)
    check(percentDecode(percentEncode(decoded), again) && again == decoded,
          "decode(encode(decode(x))) == decode(x)", text);
}

/** The first route in registration order that fits, by a plain scan. */
const kernel::Route* firstFit(std::string_view method, const std::vector<std::string_view>& segs) {
  for (const auto& r : table().routes()) {
    if (r->spec.method != method || r->segments.size() != segs.size()) continue;
    bool fits = true;
    for (std::size_t i = 0; fits && i < segs.size(); ++i)
      fits = r->segments[i].param || r->segments[i].text == segs[i];
    if (fits) return r.get();
  }
  return nullptr;
}

void checkMatch(std::string_view method, const std::string& path) {
  const auto segs = splitPath(path);
  const auto m = table().match(method, path);
  check(m.has_value() == (firstFit(method, segs) != nullptr), "match finds a fitting route", path);
  if (!m) return;
  check(m->route == firstFit(method, segs), "the first fitting route wins", path);
  const auto& route = *m->route;
  check(route.spec.method == method, "the matched route has the method", path);
  check(route.segments.size() == segs.size(), "the matched route has the path's segments", path);
  std::size_t params = 0;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const auto& s = route.segments[i];
    if (!s.param) {
      check(s.text == segs[i], "a literal segment equals the path's", path);
      continue;
    }
    ++params;
    std::string want;
    if (!percentDecode(segs[i], want)) want = std::string(segs[i]);
    auto it = m->params.find(s.text);
    check(it != m->params.end() && it->second == want, "a parameter is its segment decoded", path);
  }
  check(m->params.size() == params, "one value per parameter", path);
}

void checkQuery(std::string_view raw) {
  sdk::ParamMap query;
  decltype(sdk::Request::query_arrays) arrays;
  if (Pipeline::parseQuery(raw, query, arrays)) return;
  std::string again;
  for (const auto& [k, v] : query) again += percentEncode(k) + "=" + percentEncode(v) + "&";
  for (const auto& [k, list] : arrays)
    for (const auto& v : list) again += percentEncode(k) + "%5B%5D=" + percentEncode(v) + "&";
  sdk::ParamMap query2;
  decltype(sdk::Request::query_arrays) arrays2;
  check(!Pipeline::parseQuery(again, query2, arrays2), "a re-encoded query parses", raw);
  check(query2 == query && arrays2 == arrays, "a re-encoded query keeps its values", raw);
}

}  // namespace

void fuzzRouting(std::string_view data) {
  if (data.empty()) return;
  const std::string_view method = kMethods[static_cast<unsigned char>(data[0]) % 8];
  const std::string_view target = data.substr(1);
  checkDecoding(target);

  const std::string path = Pipeline::normalisePath(target);
  check(!path.empty() && path.front() == '/', "a normalised path starts with '/'", target);
  check(path.find("//") == std::string::npos, "a normalised path has no '//'", target);
  check(path.find_first_of("?#") == std::string::npos, "a normalised path has no query", target);
  check(path == "/" || path.back() != '/', "a normalised path has no trailing '/'", target);
  check(Pipeline::normalisePath(path) == path, "normalising twice changes nothing", target);
  checkMatch(method, path);

  if (const auto q = target.find('?'); q != std::string_view::npos) {
    auto raw = target.substr(q + 1);
    checkQuery(raw.substr(0, raw.find('#')));
  }
}

}  // namespace abx::fuzz
