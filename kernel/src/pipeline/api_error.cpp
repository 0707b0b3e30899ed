#include "pipeline/api_error.h"

namespace abx::kernel {
namespace {

std::string_view openAiType(int status) {
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

}  // namespace

sdk::Response renderError(std::string_view path, const ApiError& e) {
  std::string body;
  if (isOpenAiPath(path)) {
    body = "{\"error\":{\"message\":" + sdk::jsonQuote(e.message) +
           ",\"type\":" + sdk::jsonQuote(openAiType(e.status)) + ",\"param\":null,\"code\":" +
           (e.code.empty() ? std::string("null") : sdk::jsonQuote(e.code)) + "}}";
  } else {
    body = "{\"error\":" + sdk::jsonQuote(e.message) + ",\"type\":" + sdk::jsonQuote(e.type);
    if (!e.code.empty()) body += ",\"code\":" + sdk::jsonQuote(e.code);
    for (const auto& [k, v] : e.fields) body += "," + sdk::jsonQuote(k) + ":" + sdk::jsonQuote(v);
    if (e.retry_after) body += ",\"retry_after\":" + std::to_string(*e.retry_after);
    body += "}";
  }
  auto response = sdk::Response::json(std::move(body), e.status);
  if (e.retry_after) response.headers.emplace_back("Retry-After", std::to_string(*e.retry_after));
  if (e.close_connection) response.headers.emplace_back("Connection", "close");
  return response;
}

}  // namespace abx::kernel
