// Pipeline: the one path every request takes, in the order of spec §3.2:
// normalise -> route match -> authenticate -> admission -> duplicate query
// parameters -> Transfer-Encoding -> bounded JSON body -> handler -> audit.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "admission/admission.h"
#include "audit/audit_log.h"
#include "auth/authenticator.h"
#include "pipeline/api_error.h"
#include "pipeline/exchange.h"
#include "routing/route_table.h"

namespace abx::kernel {

/**
 * Everything a request is judged by; immutable once published. A policy
 * reload publishes a new Dispatch that shares the routes.
 * OWNERSHIP: auth and audit are owned by whoever publishes the dispatch and
 * outlive it.
 */
struct Dispatch {
  std::shared_ptr<RouteTable> routes = std::make_shared<RouteTable>();
  std::unique_ptr<Admission> admission;
  const Authenticator* auth = nullptr;
  AuditLog* audit = nullptr;
};

class Pipeline {
 public:
  static constexpr std::size_t kDefaultBodyLimit = 10u << 20;

  explicit Pipeline(std::size_t default_body_limit = kDefaultBodyLimit)
      : default_body_limit_(default_body_limit) {}

  /** Makes @p dispatch current. LIFETIME: the caller keeps it alive until exit. */
  void publish(const Dispatch* dispatch) { dispatch_.store(dispatch, std::memory_order_release); }
  const Dispatch* current() const { return dispatch_.load(std::memory_order_acquire); }

  void handle(Exchange& exchange) const;

  /** Strips the query, collapses repeated '/', strips a trailing '/' ("/" stays). */
  static std::string normalisePath(std::string_view target);

  /** Parses a query string; fills @p query / @p arrays, or returns the 400. */
  static std::optional<ApiError> parseQuery(std::string_view raw, sdk::ParamMap& query,
                                            decltype(sdk::Request::query_arrays)& arrays);

 private:
  std::size_t default_body_limit_;
  std::atomic<const Dispatch*> dispatch_{nullptr};
};

}  // namespace abx::kernel
