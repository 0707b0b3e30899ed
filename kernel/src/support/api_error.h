// ApiError: one rejection from any pipeline step — the SDK's HttpError plus
// what only the connection cares about — rendered as the route's error body:
// the native one everywhere, the OpenAI envelope under /v1/.
#pragma once

#include <string>
#include <string_view>

#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"

namespace abx::kernel {

struct ApiError : sdk::HttpError {
  /** Answer with Connection: close (the rest of the request cannot be trusted). */
  bool close_connection = false;
};

/** True for paths served with the OpenAI wire conventions. */
inline bool isOpenAiPath(std::string_view path) {
  return path == "/v1" || path.starts_with("/v1/");
}

sdk::Response renderError(std::string_view path, const ApiError& error);

}  // namespace abx::kernel
