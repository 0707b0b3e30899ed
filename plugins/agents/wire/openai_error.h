// The OpenAI error envelope every /v1/** route answers with (openai-wire.md
// §2.1): {"error":{"message","type","param","code"}}, all four keys always.
#pragma once

#include <string>
#include <string_view>

#include "abx/sdk/http.h"

namespace abx::plugins::agents {

struct WireError {
  int status = 400;
  std::string message;
  std::string code;  /**< "" → null */
  std::string param; /**< "" → null */
};

/** The type that goes with a status: invalid_request_error, authentication_error, ... */
std::string_view openAiErrorType(int status);

/** The envelope as a reply; 409 and 5xx also say `x-should-retry: false`. */
sdk::Response openAiError(const WireError& error);

}  // namespace abx::plugins::agents
