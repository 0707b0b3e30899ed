#include "metrics/kernel_metrics.h"

#include <array>
#include <charconv>

#include "abx/sdk/abi.h"

namespace abx::kernel {
namespace {

// Request latency, 1 ms to 30 s: most routes answer in milliseconds, a
// command or a proxied call may take seconds.
std::vector<double> latencyBounds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
}

// Only methods the server knows become a label value, so a client cannot
// add series by inventing methods.
std::string_view methodLabel(std::string_view method) {
  for (std::string_view known : {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"})
    if (method == known) return known;
  return "other";
}

}  // namespace

KernelMetrics::KernelMetrics(sdk::Metrics& m, std::string_view server_version)
    : requests(m.counter("abx_http_requests_total",
                         "HTTP requests answered, by endpoint, method and status.",
                         {"endpoint", "method", "status"})),
      request_seconds(m.histogram("abx_http_request_duration_seconds",
                                  "Time from a request's head to its answer (for a stream, "
                                  "until its handler returns or hands it to the event loop).",
                                  latencyBounds(), {"endpoint"})),
      in_flight(
          m.gauge("abx_http_requests_in_flight", "Requests being handled now.", {}).unlabeled()),
      connections_accepted(
          m.counter("abx_http_connections_accepted_total", "TCP connections accepted.", {})
              .labels({})),
      connections_open(
          m.gauge("abx_http_connections_open", "TCP connections open now.", {}).unlabeled()),
      refusals(m.counter("abx_http_refusals_total",
                         "Requests or connections the HTTP layer refused before the pipeline, "
                         "by reason.",
                         {"reason"})),
      streams_open(m.gauge("abx_http_streams_open",
                           "Streaming responses open now: on a worker thread, or handed to the "
                           "event loop (SSE streams and deferred answers).",
                           {"where"})),
      auth_failures(m.counter("abx_auth_failures_total",
                              "Requests refused because their credentials failed, by reason.",
                              {"reason"})),
      policy_denials(m.counter("abx_policy_denials_total",
                               "Requests the Host and Origin checks or the policy's admission "
                               "refused, by rule and error code.",
                               {"rule", "code"})),
      policy_reloads(
          m.counter("abx_policy_reloads_total", "Policy reloads (SIGHUP), by result.", {"result"})),
      plugin_up(
          m.gauge("abx_plugin_up", "1 when the plugin is started, 0 otherwise.", {"plugin"})) {
  m.gauge("abx_build_info", "The server's version and plugin ABI; always 1.", {"version", "abi"})
      .labels({server_version, ABX_SDK_STR(ABX_SDK_ABI_MAJOR) "." ABX_SDK_STR(ABX_SDK_ABI_MINOR)})
      .set(1);
  // Present from the start, so a rate over them is defined before the first event.
  for (std::string_view result : {"ok", "error"}) policy_reloads.labels({result});
  for (std::string_view where : {"worker", "loop"}) streams_open.labels({where});
}

void KernelMetrics::requestDone(std::string_view endpoint, std::string_view method, int status,
                                double seconds) const {
  std::array<char, 8> code{};
  auto [end, ec] = std::to_chars(code.data(), code.data() + code.size(), status);
  const std::string_view status_text(code.data(), ec == std::errc() ? end - code.data() : 0);
  requests.labels({endpoint, methodLabel(method), status_text}).inc();
  request_seconds.labels({endpoint}).observe(seconds);
}

void KernelMetrics::refusedBy(std::string_view rule, std::string_view code,
                              bool presented_token) const {
  if (rule == "auth") {
    const std::string_view reason = !code.empty()     ? code
                                    : presented_token ? "invalid_token"
                                                      : "missing_token";
    auth_failures.labels({reason}).inc();
  } else if (rule != "params") {
    policy_denials.labels({rule, code.empty() ? std::string_view("none") : code}).inc();
  }
}

}  // namespace abx::kernel
