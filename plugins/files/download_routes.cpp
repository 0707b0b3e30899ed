// Both routes share one implementation; they differ only in the "bytes"
// member the streaming variant adds (spec §4.3).
#include "download_routes.h"

#include "encoded_response.h"
#include "file_rules.h"

namespace abx::plugins::files {
namespace {

sdk::Response serve(const FilesContext& ctx, const sdk::Request& request, bool with_bytes) {
  auto path = request.queryParam("path");
  if (!path || path->empty()) return badRequest("Missing required parameter 'path'");
  auto verdict = ctx.guard->check(request.endpoint, *path, sdk::PathOp::read);
  if (!verdict.allowed) return denied(verdict);
  struct stat st;
  auto fd = openRegularFile(*ctx.guard, request.endpoint, verdict.resolved, st);
  if (!fd) return failure(fd.status(), *path);
  auto size = static_cast<std::uint64_t>(st.st_size);
  if (auto limit = policyByteLimit(request); limit && size > *limit)
    return tooLarge("File too large: " + std::to_string(size) + " bytes; the limit is " +
                    std::to_string(*limit));
  sdk::JsonWriter body;
  body.beginObject().member("path", verdict.resolved).key("content_base64");
  const std::size_t hole = base64Hole(body);
  if (with_bytes) body.member("bytes", size);
  body.endObject();
  return base64JsonResponse(std::move(fd).value(), size, body.take(), hole);
}

}  // namespace

sdk::Response download(const FilesContext& ctx, const sdk::Request& request) {
  return serve(ctx, request, false);
}

sdk::Response downloadStream(const FilesContext& ctx, const sdk::Request& request) {
  return serve(ctx, request, true);
}

}  // namespace abx::plugins::files
