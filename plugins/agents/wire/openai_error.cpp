#include "openai_error.h"

#include "json_text.h"

namespace abx::plugins::agents {

std::string_view openAiErrorType(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

sdk::Response openAiError(const WireError& error) {
  JsonText inner;
  inner.str("message", error.message)
      .str("type", openAiErrorType(error.status))
      .strOrNull("param", error.param)
      .strOrNull("code", error.code);
  JsonText outer;
  outer.raw("error", inner.done());
  auto response = sdk::Response::json(outer.done(), error.status);
  // The SDK retries 409 and 5xx, POSTs included; these answers are final.
  if (error.status == 409 || error.status >= 500)
    response.headers.emplace_back("x-should-retry", "false");
  return response;
}

}  // namespace abx::plugins::agents
