// Names are bytes on disk; sdk::JsonWriter turns what is not UTF-8 into
// U+FFFD, so every body stays valid JSON whatever the tree holds.
#include "listing_routes.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "abx/sdk/json.h"
#include "abx/sdk/policy_limits.h"
#include "file_rules.h"
#include "tree_walk.h"

namespace abx::plugins::files {
namespace {

constexpr std::uint64_t kListMaxEntries = 100000;
constexpr std::int64_t kSearchDefaultResults = 1000;
constexpr std::uint64_t kSearchMaxResults = 100000;

const char* typeName(const struct stat& st) { return S_ISDIR(st.st_mode) ? "directory" : "file"; }

std::string queryPathOr(const sdk::Request& request, std::string_view fallback) {
  auto p = request.queryParam("path");
  return std::string(p && !p->empty() ? *p : fallback);
}

/** "true"/"1"/"yes" (any case) or their opposites; nullopt when unrecognised. */
std::optional<bool> parseFlag(std::string_view v) {
  std::string s(v);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "1" || s == "yes") return true;
  if (s == "false" || s == "0" || s == "no") return false;
  return std::nullopt;
}

}  // namespace

sdk::Response listFiles(const FilesContext& ctx, const sdk::Request& request) {
  std::string path = queryPathOr(request, ".");
  bool hidden = true;
  if (auto h = request.queryParam("hidden")) {
    auto flag = parseFlag(*h);
    if (!flag) return badRequest("Parameter 'hidden' must be true or false");
    hidden = *flag;
  }
  auto verdict = ctx.guard->check(request.endpoint, path, sdk::PathOp::list);
  if (!verdict.allowed) return denied(verdict);
  auto entries = readDirectory(*ctx.guard, request.endpoint, verdict.resolved);
  if (!entries) {
    const auto& s = entries.status();
    if (s.type() == "FileNotFoundError")
      return sdk::Response::error(404, "Directory not found: " + path, "FileNotFoundError");
    return failure(s, path);
  }
  const std::uint64_t cap = entryLimit(request, kListMaxEntries);
  // One writer for the whole listing: entries are appended in place, no
  // temporary per field.
  sdk::JsonWriter body(std::min<std::uint64_t>(entries->size(), cap) * 96 + 64);
  body.beginObject().key("entries").beginArray();
  std::uint64_t count = 0;
  bool truncated = false;
  for (const auto& e : *entries) {
    if (!hidden && e.name.starts_with('.')) continue;
    if (!e.target_exists) continue;  // a dangling link has no type, size or time
    if (count == cap) {
      truncated = true;
      break;
    }
    ++count;
    body.beginObject()
        .member("name", e.name)
        .member("type", typeName(e.st))
        .member("size", std::int64_t{e.st.st_size})
        .member("modified", isoTime(e.st.st_mtim))
        .endObject();
  }
  body.endArray().member("truncated", truncated).endObject();
  return sdk::Response::json(body.take());
}

sdk::Response statFile(const FilesContext& ctx, const sdk::Request& request) {
  auto p = request.queryParam("path");
  if (!p || p->empty()) return badRequest("Missing required parameter 'path'");
  std::string path(*p);
  auto verdict = ctx.guard->check(request.endpoint, path, sdk::PathOp::read);
  if (!verdict.allowed) return denied(verdict);

  // Where a final symlink leads is what the guard resolved; the link itself
  // is its parent (resolved by the guard) plus its own name.
  std::string entry = verdict.resolved;
  std::string name = baseName(verdict.resolved);
  struct stat st;
  bool exists = false;
  std::string last = baseName(path);
  if (!last.empty() && last != "." && last != "..") {
    auto parent = ctx.guard->check(request.endpoint, parentPath(path), sdk::PathOp::read);
    std::string link = parent.allowed ? joinPath(parent.resolved, last) : std::string();
    if (!link.empty() && link != verdict.resolved && ::lstat(link.c_str(), &st) == 0 &&
        S_ISLNK(st.st_mode)) {
      entry = std::move(link);
      name = last;
      exists = true;
    }
  }
  if (!exists) exists = ::lstat(entry.c_str(), &st) == 0;
  sdk::JsonWriter body;
  body.beginObject().member("name", name).member("path", entry);
  if (exists)
    body.member("type", S_ISLNK(st.st_mode) ? "symlink" : typeName(st))
        .member("size", std::int64_t{st.st_size})
        .member("permissions", permissions(st.st_mode))
        .member("modified", isoTime(st.st_mtim));
  else
    body.member("type", "unknown")
        .member("size", 0)
        .member("permissions", "")
        .member("modified", "");
  body.member("exists", exists).endObject();
  return sdk::Response::json(body.take());
}

sdk::Response searchFiles(const FilesContext& ctx, const sdk::Request& request) {
  const auto& body = request.json;
  auto path = body.string("path", std::string("."));
  if (!path) return badRequest(path.status().message());
  auto pattern = body.string("pattern");
  if (!pattern) return badRequest(pattern.status().message());
  if (pattern->empty()) return badRequest("Field 'pattern' must not be empty");
  auto max_results = body.integer("max_results", kSearchDefaultResults);
  if (!max_results) return badRequest(max_results.status().message());
  if (*max_results < 1) return badRequest("Field 'max_results' must be at least 1");

  auto verdict = ctx.guard->check(request.endpoint, *path, sdk::PathOp::list);
  if (!verdict.allowed) return denied(verdict);
  struct stat root;
  if (::stat(verdict.resolved.c_str(), &root) != 0)
    return sdk::Response::error(404, "Directory not found: " + *path, "FileNotFoundError");
  if (!S_ISDIR(root.st_mode))
    return sdk::Response::error(400, "Not a directory: " + *path, "NotADirectoryError");

  const std::uint64_t cap = entryLimit(
      request,
      std::min<std::uint64_t>(static_cast<std::uint64_t>(*max_results), kSearchMaxResults));
  // The policy's timeout (and max_duration_seconds) may only shorten the walk.
  auto budget = sdk::secondsToMilliseconds(kSearchTimeoutSeconds);
  if (auto cap = sdk::policyTimeout(request.policy)) budget = std::min(budget, *cap);
  const auto deadline = std::chrono::steady_clock::now() + budget;
  const bool on_path = pattern->find('/') != std::string::npos;

  sdk::JsonWriter out;
  out.beginObject().key("results").beginArray();
  std::uint64_t count = 0;
  bool timed_out = false, truncated = false;
  walkTree(*ctx.guard, request.endpoint, verdict.resolved,
           [&](const DirEntry& e, const std::string& relative) {
             if (std::chrono::steady_clock::now() > deadline) {
               timed_out = true;
               return Visit::stop;
             }
             const std::string& subject = on_path ? relative : e.name;
             if (::fnmatch(pattern->c_str(), subject.c_str(), 0) != 0) return Visit::go_on;
             if (count == cap) {
               truncated = true;
               return Visit::stop;
             }
             ++count;
             out.beginObject()
                 .member("name", e.name)
                 .member("path", e.path)
                 .member("type", e.is_link ? "symlink" : typeName(e.lst))
                 .endObject();
             return Visit::go_on;
           });
  out.endArray().member("timed_out", timed_out).member("truncated", truncated).endObject();
  return sdk::Response::json(out.take());
}

}  // namespace abx::plugins::files
