#include "openai_error.h"

namespace abx::plugins::agents {

sdk::Response openAiError(const WireError& error) {
  auto response = error.toOpenAiResponse();
  // The SDK retries 409 and 5xx, POSTs included; these answers are final.
  if (error.status == 409 || error.status >= 500)
    response.headers.emplace_back("x-should-retry", "false");
  return response;
}

}  // namespace abx::plugins::agents
