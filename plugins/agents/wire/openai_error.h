// The OpenAI error envelope every /v1/** route answers with (openai-wire.md
// §2.1): {"error":{"message","type","param","code"}}, all four keys always.
// A refusal is an sdk::HttpError naming what it needs, e.g.
// openAiError({.status = 404, .message = "...", .code = "not_found"}).
#pragma once

#include "abx/sdk/http.h"
#include "abx/sdk/http_error.h"

namespace abx::plugins::agents {

/** A refusal of the OpenAI wires: status, message, code ("" → null), param ("" → null). */
using WireError = sdk::HttpError;

/** The envelope as a reply; 409 and 5xx also say `x-should-retry: false`. */
sdk::Response openAiError(const WireError& error);

}  // namespace abx::plugins::agents
