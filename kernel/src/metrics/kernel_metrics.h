// KernelMetrics: the metrics the kernel itself keeps — requests, latency,
// connections and what the HTTP layer refuses, streams, authentication
// failures, policy denials and reloads, plugins, the build. Registered once
// at start-up; the HTTP layer and the pipeline update the cells (null in
// unit tests that run without them). docs/metrics.md lists them.
#pragma once

#include <string_view>

#include "abx/sdk/metrics.h"

namespace abx::kernel {

struct KernelMetrics {
  KernelMetrics(sdk::Metrics& metrics, std::string_view server_version);

  /** One finished request: its endpoint ("none" when no route matched), method and status. */
  void requestDone(std::string_view endpoint, std::string_view method, int status,
                   double seconds) const;
  /**
   * A request the pipeline refused under audit rule @p rule with error code
   * @p code: an authentication failure (rule "auth"; @p presented_token: the
   * caller sent a token) or a policy denial; a malformed request (rule
   * "params") is neither.
   */
  void refusedBy(std::string_view rule, std::string_view code, bool presented_token) const;
  /** Something the HTTP layer answered or closed without the pipeline (see docs/metrics.md). */
  void refused(std::string_view reason) const { refusals.labels({reason}).inc(); }

  sdk::CounterFamily& requests;
  sdk::HistogramFamily& request_seconds;
  sdk::GaugeCell& in_flight;
  sdk::CounterCell& connections_accepted;
  sdk::GaugeCell& connections_open;
  sdk::CounterFamily& refusals;
  /** By where: "worker" or "loop". */
  sdk::GaugeFamily& streams_open;
  sdk::CounterFamily& auth_failures;
  sdk::CounterFamily& policy_denials;
  sdk::CounterFamily& policy_reloads;
  sdk::GaugeFamily& plugin_up;
};

}  // namespace abx::kernel
