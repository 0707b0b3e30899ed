#include "support/api_error.h"

namespace abx::kernel {

sdk::Response renderError(std::string_view path, const ApiError& e) {
  auto response = isOpenAiPath(path) ? e.toOpenAiResponse() : e.toResponse();
  if (e.close_connection) response.headers.emplace_back("Connection", "close");
  return response;
}

}  // namespace abx::kernel
