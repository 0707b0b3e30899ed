// HttpError's two bodies (see abx/sdk/http_error.h).
#include "abx/sdk/http_error.h"

#include "abx/sdk/json.h"

namespace abx::sdk {

HttpError HttpError::badRequest(std::string message, std::string code) {
  HttpError e;
  e.message = std::move(message);
  e.code = std::move(code);
  return e;
}

HttpError HttpError::fromStatus(int http_status, const Status& failure) {
  HttpError e;
  e.status = http_status;
  e.message = failure.message();
  e.type = failure.type().empty() ? "RuntimeError" : failure.type();
  return e;
}

namespace {
Response withRetryAfter(Response response, const std::optional<std::int64_t>& seconds) {
  if (seconds) response.headers.emplace_back("Retry-After", std::to_string(*seconds));
  return response;
}
}  // namespace

Response HttpError::toResponse() const {
  JsonWriter body(message.size() + 64);
  body.beginObject().member("error", message).member("type", type);
  if (!code.empty()) body.member("code", code);
  for (const auto& [name, value] : fields) body.member(name, value);
  if (retry_after) body.member("retry_after", *retry_after);
  body.endObject();
  return withRetryAfter(Response::json(body.take(), status), retry_after);
}

Response HttpError::toOpenAiResponse() const {
  JsonWriter body(message.size() + 96);
  body.beginObject().key("error").beginObject();
  body.member("message", message).member("type", openAiErrorType(status));
  body.key("param");
  param.empty() ? body.null() : body.value(param);
  body.key("code");
  code.empty() ? body.null() : body.value(code);
  // The policy's rule, endpoint and scope ride inside the error object, where
  // the SDK's APIError keeps them (error.rule, ...).
  for (const auto& [name, value] : fields)
    if (name != "message" && name != "type" && name != "param" && name != "code")
      body.member(name, value);
  body.endObject().endObject();
  return withRetryAfter(Response::json(body.take(), status), retry_after);
}

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

}  // namespace abx::sdk
