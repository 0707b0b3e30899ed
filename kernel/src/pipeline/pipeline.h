// Pipeline: the one path every request takes, in the order of spec §3.2:
// normalise -> route match -> Host and Origin -> authenticate -> admission ->
// duplicate query parameters -> Transfer-Encoding -> bounded JSON body ->
// handler -> audit. CORS preflights (OPTIONS) are answered before routing.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "abx/sdk/admission.h"
#include "metrics/kernel_metrics.h"
#include "pipeline/access_log.h"
#include "pipeline/admission.h"
#include "pipeline/audit_log.h"
#include "pipeline/exchange.h"
#include "pipeline/origin_policy.h"
#include "policy/authenticator.h"
#include "routing/route_table.h"
#include "support/api_error.h"

namespace abx::kernel {

/**
 * Everything a request is judged by; immutable once published. A policy
 * reload publishes a new Dispatch that shares the routes.
 * OWNERSHIP: owns its authenticator and audit log (not the audit log's sink
 * or ring). Shared by the pipeline and every call that started under it:
 * a replaced dispatch is freed when the last of them ends.
 */
struct Dispatch {
  std::shared_ptr<RouteTable> routes = std::make_shared<RouteTable>();
  std::unique_ptr<Admission> admission;
  std::unique_ptr<const Authenticator> auth;
  std::unique_ptr<AuditLog> audit;
};

class Pipeline {
 public:
  static constexpr std::size_t kDefaultBodyLimit = 10u << 20;

  explicit Pipeline(std::size_t default_body_limit = kDefaultBodyLimit)
      : default_body_limit_(default_body_limit) {}

  /** Makes @p dispatch current; the one it replaces goes with its last holder. */
  void publish(std::shared_ptr<const Dispatch> dispatch);
  /**
   * The current dispatch. LIFETIME: keep the copy for as long as anything
   * from it is used (never `*current()` into a reference that outlives the
   * statement): a reload may free the dispatch as soon as it is let go.
   */
  std::shared_ptr<const Dispatch> current() const;

  void handle(Exchange& exchange) const;
  /**
   * handle() for a request whose caller is already known (an in-process
   * call, HostContext::call): no Host/Origin check and no authentication,
   * then every later stage as for HTTP (admission, checks, handler, audit,
   * metrics) with @p caller as the identity.
   */
  void handleAs(Exchange& exchange, const sdk::Identity& caller) const;

  /** Host and Origin checks for every request; null (unit tests): none. */
  void setOriginPolicy(const OriginPolicy* origins) { origins_ = origins; }
  /** Where requests, denials and auth failures are counted; null (unit tests): nowhere. */
  void setMetrics(const KernelMetrics* metrics) { metrics_ = metrics; }
  /** One line per answered request (--access-log); nullptr: none. */
  void setAccessLog(AccessLog* log) { access_log_ = log; }
  const OriginPolicy* originPolicy() const { return origins_; }

  /** Strips the query, collapses repeated '/', strips a trailing '/' ("/" stays). */
  static std::string normalisePath(std::string_view target);

  /**
   * Admission of a request served outside this pipeline (a plugin's
   * WebSocket handshake): Host and Origin, authentication, admission and
   * audit, as handle() does them.
   */
  sdk::Admission admitOutside(const sdk::AdmissionRequest& request) const;

  /** The rule an audit record names for a refusal @p e of an endpoint under @p policy. */
  static std::string denialRule(const sdk::EndpointPolicy& policy, const ApiError& e);

  /** Parses a query string; fills @p query / @p arrays, or returns the 400. */
  static std::optional<ApiError> parseQuery(std::string_view raw, sdk::ParamMap& query,
                                            decltype(sdk::Request::query_arrays)& arrays);

 private:
  struct Call;
  /** handle() without its bookkeeping: every stage, to the answer. */
  void serve(Call& call) const;
  /** handle()'s bookkeeping (metrics, access log) around serve(). */
  void run(Call& call) const;
  /** The request's metrics and access-log line, once it is answered. */
  void finished(const Call& call) const;
  /** Finds the route and its policy; false: 404. */
  bool route(Call& call) const;
  /** Sets the caller's identity (the open one when no token is needed), or the 401. */
  std::optional<ApiError> authenticate(Call& call) const;
  /** Fills @p request (query, body, identity) or returns the refusal and its @p rule. */
  std::optional<ApiError> readRequest(Call& call, sdk::Request& request, std::string& rule) const;
  std::optional<ApiError> readBody(Call& call, sdk::Request& request, std::string& rule) const;
  /** Runs @p handler; an exception becomes a 500 that names the endpoint. */
  template <class Handler>
  static auto invoke(const Call& call, Handler&& handler) -> decltype(handler());
  static sdk::Response internalError(const Call& call, std::string_view what);
  void invokeStream(Call& call, sdk::Request& request) const;

  /** A CORS preflight (OPTIONS with an Origin): 204 with the CORS headers, or the refusal.
   *  @return the status sent. */
  int preflight(Exchange& ex, const std::string& path) const;
  /** The Host/Origin refusal of @p ex, or nullopt (CORS headers added for an allowed origin). */
  std::optional<ApiError> admitBrowserCaller(Exchange& ex) const;

  std::size_t default_body_limit_;
  const OriginPolicy* origins_ = nullptr;
  const KernelMetrics* metrics_ = nullptr;
  AccessLog* access_log_ = nullptr;
  mutable std::mutex dispatch_mutex_;
  std::shared_ptr<const Dispatch> dispatch_;  // guarded by dispatch_mutex_
};

}  // namespace abx::kernel
