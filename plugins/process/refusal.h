// Refusal: why a request is answered with an error, before it becomes a
// Response ({"error", "type"[, "code"]}). Pure functions return it so they
// are tested without HTTP.
#pragma once

#include <string>
#include <utility>

#include "abx/sdk/http.h"

namespace abx::plugins::process {

struct Refusal {
  int status = 400;
  std::string message;
  std::string type = "ValueError";
  std::string code;
};

inline Refusal badRequest(std::string message) {
  return {400, std::move(message), "ValueError", {}};
}

/** 500 with the type of a spawn that failed (FileNotFoundError, PermissionError, OSError). */
inline Refusal spawnFailure(const sdk::Status& status) {
  return {500, status.message(), status.type().empty() ? "RuntimeError" : status.type(), {}};
}

inline sdk::Response toResponse(const Refusal& refusal) {
  return sdk::Response::error(refusal.status, refusal.message, refusal.type, refusal.code);
}

}  // namespace abx::plugins::process
