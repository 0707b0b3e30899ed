// ApiError: one rejection from any pipeline step, rendered as the route's
// error body: {"error","type","code",...} everywhere, the OpenAI envelope
// {"error":{"message","type","param","code"}} under /v1/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"

namespace abx::kernel {

struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "ValueError";
  std::string code;
  /** Extra string fields of the plain body: endpoint, rule, scope, limit (a limit's name). */
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<std::int64_t> retry_after; /**< seconds; also sent as Retry-After */
  bool close_connection = false;
};

/** True for paths served with the OpenAI wire conventions. */
inline bool isOpenAiPath(std::string_view path) {
  return path == "/v1" || path.starts_with("/v1/");
}

sdk::Response renderError(std::string_view path, const ApiError& error);

}  // namespace abx::kernel
