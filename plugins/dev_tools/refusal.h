// Refusal: why a dev_tools request is answered with an error, before it
// becomes a Response ({"error", "type"[, "code"]}). Pure functions return it
// so they are tested without HTTP.
#pragma once

#include <string>
#include <utility>

#include "abx/sdk/http.h"

namespace abx::plugins::dev_tools {

struct Refusal {
  int status = 400;
  std::string message;
  std::string type = "ValueError";
  std::string code;
};

inline Refusal badRequest(std::string message) {
  return {400, std::move(message), "ValueError", {}};
}

inline sdk::Response toResponse(const Refusal& refusal) {
  return sdk::Response::error(refusal.status, refusal.message, refusal.type, refusal.code);
}

}  // namespace abx::plugins::dev_tools
