// HttpError: the one error type a handler answers with, and the one mapping
// to the two error bodies of the wire: the native
// {"error","type"[,"code"],...fields[,"retry_after"]} and, for the OpenAI
// routes under /v1/, the envelope {"error":{"message","type","param","code",
// ...fields}} whose type follows the status (openAiErrorType).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "abx/sdk/http.h"
#include "abx/sdk/status.h"

namespace abx::sdk {

// Members all have initializers, so HttpError{403, message, type, code}
// names only what it needs.
struct HttpError {
  int status = 400;
  std::string message = {};
  /** The native body's "type" (Python's exception names: ValueError, ...). */
  std::string type = "ValueError";
  /** A machine-readable code; "" → left out (native) or null (OpenAI). */
  std::string code = {};
  /** The OpenAI envelope's "param"; "" → null. */
  std::string param = {};
  /** Extra string fields (endpoint, rule, scope, limit): members of the
   *  native body, and of the OpenAI envelope's error object. */
  std::vector<std::pair<std::string, std::string>> fields = {};
  /** Seconds; also sent as Retry-After. */
  std::optional<std::int64_t> retry_after = {};

  /** 400 ValueError. */
  ABX_SDK_API static HttpError badRequest(std::string message, std::string code = {});
  /** @p http_status with @p failure's message and type (RuntimeError when it has none). */
  ABX_SDK_API static HttpError fromStatus(int http_status, const Status& failure);

  ABX_SDK_API Response toResponse() const;
  ABX_SDK_API Response toOpenAiResponse() const;
};

/** The OpenAI error type of a status: invalid_request_error, authentication_error, ... */
ABX_SDK_API std::string_view openAiErrorType(int status);

}  // namespace abx::sdk
